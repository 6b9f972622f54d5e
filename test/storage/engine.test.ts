import type { EventRecord } from '../../src/storage/log/record.js';
import t from 'tap';
import { Errors } from '../../src/common/errors.js';
import { DELETED_EVENT_NUMBER } from '../../src/storage/streams/stream-metadata.js';
import { newEvent, newEvents, openEngine, tempDirectory } from '../helpers/engine.js';
import { PackedInBlock } from '../../src/storage/log/packed-event.js';
import { RECORD_PAYLOAD_BYTES_MAX } from '../../src/storage/log/record.js';
import { writeUuid } from '../../src/storage/log/uuid.js';
import type { NewEvent } from '../../src/storage/streams/write-types.js';

t.test('appends are numbered from 0 and read back forwards, backwards and by number', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  const events = newEvents(5);
  const result = await engine.append('orders-1', -1, events);
  t.match(result, { firstEventNumber: 0, lastEventNumber: 4, idempotent: false });
  const forward = engine.readStreamForward('orders-1', 0, 10);
  t.same(forward.events.map((e) => e.eventId), events.map((e) => e.eventId));
  t.same(forward.events.map((e) => e.eventNumber), [0, 1, 2, 3, 4]);
  t.equal(forward.isEndOfStream, true);
  t.equal(forward.lastEventNumber, 4);
  t.same(forward.events[2].data, events[2].data);
  const backward = engine.readStreamBackward('orders-1', -1, 2);
  t.same(backward.events.map((e) => e.eventNumber), [4, 3]);
  t.equal(backward.nextEventNumber, 2);
  t.equal(engine.readEvent('orders-1', 3).event?.eventId, events[3].eventId);
  t.equal(engine.readEvent('orders-1', -1).event?.eventNumber, 4, '-1 reads the last event');
  t.equal(engine.readEvent('orders-1', 9).status, 'notFound');
  t.equal(engine.readStreamForward('nothing-here', 0, 10).status, 'notFound');
});

t.test('expected versions: any, no stream, stream exists and an exact number', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  await t.rejects(engine.append('s', -4, [newEvent()]), { code: Errors.wrongExpectedVersion.code, details: { current: -1 } });
  await t.rejects(engine.append('s', 0, [newEvent()]), { code: Errors.wrongExpectedVersion.code });
  t.match(await engine.append('s', -1, [newEvent()]), { firstEventNumber: 0 });
  await t.rejects(engine.append('s', -1, [newEvent()]), { code: Errors.wrongExpectedVersion.code, details: { current: 0 } });
  t.match(await engine.append('s', -4, [newEvent()]), { firstEventNumber: 1 });
  t.match(await engine.append('s', 1, [newEvent()]), { firstEventNumber: 2 });
  await t.rejects(engine.append('s', 1, [newEvent()]), { code: Errors.wrongExpectedVersion.code, details: { expected: 1, current: 2 } });
  t.match(await engine.append('s', -2, [newEvent()]), { firstEventNumber: 3 });
  await t.rejects(engine.append('s', -3, [newEvent()]), { code: Errors.invalidExpectedVersion.code });
  t.equal(engine.readStreamForward('s', 0, 100).events.length, 4, 'rejected appends wrote nothing');
});

t.test('idempotent repeats return the original result and write nothing', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  const batch = newEvents(3);
  const first = await engine.append('idem', -1, batch);
  t.match(await engine.append('idem', -1, batch), { firstEventNumber: 0, lastEventNumber: 2, idempotent: true, logPosition: first.logPosition });
  t.match(await engine.append('idem', -2, batch), { firstEventNumber: 0, idempotent: true }, 'any: found through recent ids');
  const shouted = batch.map((event) => ({ ...event, eventId: event.eventId.toUpperCase() }));
  t.match(await engine.append('idem', -1, shouted), { idempotent: true }, 'ids compare without regard to case');
  await engine.append('idem', 2, [newEvent()]);
  await t.rejects(engine.append('idem', 2, batch.slice(0, 1)), { code: Errors.wrongExpectedVersion.code }, 'position 3 holds another id: a wrong version');
  await t.rejects(engine.append('idem', -1, [batch[0], newEvent()]), { code: Errors.wrongExpectedVersion.code }, 'a partial repeat is a wrong expected version');
  t.equal(engine.readStreamForward('idem', 0, 100).lastEventNumber, 3);
});

t.test('follow-up appends do not push the ids of clients out of the table of recent ids', async (t) => {
  const engine = await openEngine(tempDirectory(t), { recentEventIdsMax: 10 });
  const batch = newEvents(2);
  const first = await engine.append('client-1', -2, batch);
  // A projection's links: many more events than the table holds.
  for (let i = 0; i < 20; i++) await engine.append(`$ce-client-${i % 3}`, -2, newEvents(5), { followUp: true });
  t.match(await engine.append('client-1', -2, batch), { idempotent: true, logPosition: first.logPosition }, 'the repeat is still found');
  t.match(await engine.append('client-1', -2, batch.slice(1)), { idempotent: true, firstEventNumber: 1 }, 'and so is a repeat of its later part');
  for (let i = 0; i < 12; i++) await engine.append(`client-${i + 2}`, -2, newEvents(2));
  t.match(await engine.append('client-1', -2, batch), { idempotent: false, firstEventNumber: 2 }, 'clients\' own writes do push it out');
});

t.test('data read from the chunk being written comes as ordinary bytes of its own, not a view of the chunk', async (t) => {
  // Regression: views of the chunk's shared memory were sent by the HTTP layer as {"type":"Buffer",...}.
  const engine = await openEngine(tempDirectory(t));
  const events = [newEvent(), { ...newEvent(), data: Buffer.alloc(5000, 7), metadata: Buffer.from('{"m":1}') }];
  await engine.append('bytes-1', -1, events);
  const [small, large] = engine.readStreamForward('bytes-1', 0, 2).events;
  for (const [event, written] of [[small, events[0]], [large, events[1]]] as const) {
    t.ok(event.data.buffer instanceof ArrayBuffer, 'data is backed by an ArrayBuffer');
    t.ok(event.metadata.length === 0 || event.metadata.buffer instanceof ArrayBuffer, 'and so is metadata');
    t.same(event.data, written.data);
  }
  large.data.fill(0);
  t.same(engine.readStreamForward('bytes-1', 1, 1).events[0].data, events[1].data, 'a reader that changes its copy changes nothing stored');
});

t.test('an append of many events is one transaction in one chunk', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  for (let i = 0; i < 60; i++) await engine.append(`tx-${i % 3}`, -2, newEvents(20));
  const all = [];
  let page = engine.readAllForward(0, 500);
  all.push(...page.events);
  while (!page.isEnd) {
    page = engine.readAllForward(page.nextPosition, 500);
    all.push(...page.events);
  }
  t.equal(all.length, 1200);
  const chunkSize = 64 * 1024;
  for (let i = 0; i < all.length; i += 20) {
    const group = all.slice(i, i + 20);
    t.ok(group.every((e) => e.transactionPosition === group[0].logPosition), 'one transaction position');
    t.equal(Math.floor(group[0].logPosition / chunkSize), Math.floor(group[19].logPosition / chunkSize), 'never spans chunks');
  }
  t.ok(engine.status().chunkCount >= 3, `crossed chunk boundaries (${engine.status().chunkCount} chunks)`);
});

t.test('$all reads forwards and backwards are mirror images and skip epoch records', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  for (let i = 0; i < 200; i++) await engine.append(`all-${i % 7}`, -2, newEvents(1 + (i % 4)));
  const forward: EventRecord[] = [];
  for (let page = engine.readAllForward(0, 33); ; page = engine.readAllForward(page.nextPosition, 33)) {
    forward.push(...page.events);
    if (page.isEnd) break;
  }
  const backward = [];
  for (let page = engine.readAllBackward(-1, 29); ; page = engine.readAllBackward(page.nextPosition, 29)) {
    backward.push(...page.events);
    if (page.isEnd) break;
  }
  t.equal(forward.length, 500);
  t.same(backward.map((e) => e.logPosition).reverse(), forward.map((e) => e.logPosition));
  t.ok(forward.every((e, i) => i === 0 || e.logPosition > forward[i - 1].logPosition), 'ascending positions');
  await t.rejects(async () => engine.readAllForward(forward[3].logPosition + 1, 10), { code: Errors.invalidArgument.code }, 'not a record position');
});

t.test('filtered $all reads: pages of accepted events, each looking at no more than its scan limit', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  for (let i = 0; i < 120; i++) await engine.append(i % 10 === 0 ? 'wanted' : `other-${i % 3}`, -2, newEvents(1));
  const filter = { accepts: (event: { streamName: string }) => event.streamName === 'wanted', scanLimit: 25 };
  const collect = (read: (from: number) => { events: { eventNumber: number }[]; nextPosition: number; isEnd: boolean }, start: number) => {
    const numbers: number[] = [];
    let pages = 0;
    for (let page = read(start); ; page = read(page.nextPosition)) {
      pages++;
      t.ok(page.events.length <= 4, 'no more than the count');
      numbers.push(...page.events.map((event) => event.eventNumber));
      if (page.isEnd) break;
    }
    return { numbers, pages };
  };
  const forward = collect((from) => engine.readAllForward(from, 4, filter), 0);
  t.same(forward.numbers, [...Array(12).keys()], 'every accepted event once, in log order');
  t.ok(forward.pages >= 5, `at most 25 events looked at per page: ${forward.pages} pages for 120+ events`);
  const backward = collect((from) => engine.readAllBackward(from, 4, filter), -1);
  t.same(backward.numbers, [...Array(12).keys()].reverse());
  const none = engine.readAllBackward(-1, 4, { accepts: () => false, scanLimit: 25 });
  t.same(none.events, []);
  t.notOk(none.isEnd, 'a page that found nothing within its limit is not the end');
});

t.test('soft delete hides the stream; a new append revives it with continued numbering', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  await engine.append('soft', -1, newEvents(3));
  await t.rejects(engine.deleteStream('soft', 0, false), { code: Errors.wrongExpectedVersion.code });
  await engine.deleteStream('soft', 2, false);
  t.equal(engine.readStreamForward('soft', 0, 10).status, 'notFound');
  t.equal(engine.readEvent('soft', 1).status, 'notFound');
  t.equal(engine.getStreamMetadata('soft').metadata.text, '{"$tb":9223372036854775807}', 'the delete sets $tb to the largest event number');
  t.match(await engine.append('soft', -1, [newEvent()]), { firstEventNumber: 3 });
  t.equal(engine.getStreamMetadata('soft').metadata.truncateBefore, 3, 'the first append after it sets $tb to its first event');
  const page = engine.readStreamForward('soft', 0, 10);
  t.same(page.events.map((e) => e.eventNumber), [3]);
});

t.test('hard delete: reads and writes of the stream and its metadata are refused forever', async (t) => {
  const directory = tempDirectory(t);
  let engine = await openEngine(directory);
  await engine.append('hard', -1, newEvents(2));
  await engine.deleteStream('hard', -2, true);
  t.equal(engine.readStreamForward('hard', 0, 10).status, 'deleted');
  await t.rejects(engine.append('hard', -2, [newEvent()]), { code: Errors.streamDeleted.code });
  await t.rejects(engine.setStreamMetadata('hard', -2, { $maxCount: 2 }), { code: Errors.streamDeleted.code });
  await engine.close();
  engine = await openEngine(directory);
  t.equal(engine.readEvent('hard', 0).status, 'deleted', 'still deleted after a restart');
  t.equal(engine.getStreamMetadata('hard').deleted, true);
  await t.rejects(engine.append('hard', -1, [newEvent()]), { code: Errors.streamDeleted.code });
  const tombstone = engine.readAllBackward(-1, 1).events[0];
  t.match(tombstone, { streamName: 'hard', eventNumber: DELETED_EVENT_NUMBER, eventType: '$streamDeleted' });
});

t.test('metadata: $maxCount, $tb and $maxAge take effect on reads at once', async (t) => {
  let now = 1_000_000_000_000;
  const engine = await openEngine(tempDirectory(t), { clock: () => now });
  await engine.append('meta', -1, newEvents(10));
  await engine.setStreamMetadata('meta', -1, { $maxCount: 3 });
  t.same(engine.readStreamForward('meta', 0, 100).events.map((e) => e.eventNumber), [7, 8, 9]);
  t.equal(engine.readEvent('meta', 2).status, 'notFound');
  await engine.setStreamMetadata('meta', 0, { $tb: 8 });
  t.same(engine.readStreamBackward('meta', -1, 100).events.map((e) => e.eventNumber), [9, 8]);
  now += 10_000;
  await engine.append('meta', 9, newEvents(2));
  await engine.setStreamMetadata('meta', 1, { $maxAge: 5, custom: 'kept' });
  t.same(engine.readStreamForward('meta', 0, 100).events.map((e) => e.eventNumber), [10, 11], 'older than 5 s are hidden');
  t.match(engine.getStreamMetadata('meta').metadata.text, /"custom":"kept"/);
  t.equal(engine.readStreamForward('$$meta', 0, 10).events.length, 3, 'metadata stream holds one event per change');
  await t.rejects(engine.setStreamMetadata('meta', -2, { $maxCount: 'three' }), { code: Errors.invalidArgument.code });
  await t.rejects(engine.setStreamMetadata('meta', -2, { $acl: { $r: 1 } }), { code: Errors.invalidArgument.code });
});

t.test('bad input is refused with a coded error and changes nothing', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  const before = engine.status().readableEnd;
  await t.rejects(engine.append('', -2, [newEvent()]), { code: Errors.invalidStreamName.code });
  await t.rejects(engine.append('x'.repeat(2000), -2, [newEvent()]), { code: Errors.invalidStreamName.code });
  await t.rejects(engine.append('s', -2, [{ ...newEvent(), eventId: 'nope' }]), { code: Errors.invalidEvent.code });
  await t.rejects(engine.append('s', -2, [{ ...newEvent(), eventType: '' }]), { code: Errors.invalidEvent.code });
  await t.rejects(engine.append('s', -2, [{ ...newEvent(), data: Buffer.alloc(70 * 1024) }]), { code: Errors.appendTooLarge.code });
  await t.rejects(engine.append('s', 1.5, [newEvent()]), { code: Errors.invalidExpectedVersion.code });
  t.throws(() => engine.readStreamForward('s', -5, 10), { code: Errors.invalidArgument.code });
  t.throws(() => engine.readStreamForward('s', 0, 0), { code: Errors.invalidArgument.code });
  t.throws(() => engine.readAllBackward(-7, 10), { code: Errors.invalidArgument.code });
  t.equal(engine.status().readableEnd, before);
});

t.test('a second open of the same database is refused with the lock error', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  await t.rejects(openEngine(directory), { code: Errors.storageLocked.code });
  await engine.close();
  const again = await openEngine(directory);
  t.equal(again.status().state, 'open', 'the lock is released by close');
  await again.close();
});

t.test('concurrent appenders to one stream: exactly one winner per expected version', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  const winners: number[] = [];
  for (let version = -1; version < 20; version++) {
    const attempts = await Promise.allSettled(Array.from({ length: 8 }, () => engine.append('race', version, [newEvent()])));
    const won = attempts.filter((a) => a.status === 'fulfilled');
    t.equal(won.length, 1, `one winner at ${version}`);
    winners.push((won[0] as PromiseFulfilledResult<{ firstEventNumber: number }>).value.firstEventNumber);
  }
  t.same(winners, Array.from({ length: 21 }, (_, i) => i));
});

t.test('everything survives a reopen: streams, numbering, metadata, index files', async (t) => {
  const directory = tempDirectory(t);
  let engine = await openEngine(directory);
  const written = new Map<string, string[]>();
  for (let i = 0; i < 300; i++) {
    const stream = `reopen-${i % 13}`;
    const events = newEvents(1 + (i % 3));
    await engine.append(stream, -2, events);
    written.set(stream, [...(written.get(stream) ?? []), ...events.map((e) => e.eventId)]);
  }
  await engine.setStreamMetadata('reopen-1', -1, { $maxCount: 2 });
  await engine.close();
  engine = await openEngine(directory);
  t.ok(engine.indexStats().files.length > 0, 'index files were written');
  for (const [stream, ids] of written) {
    const page = engine.readStreamForward(stream, 0, 4096);
    const expected = stream === 'reopen-1' ? ids.slice(-2) : ids;
    t.same(page.events.map((e) => e.eventId), expected, stream);
  }
  t.match(await engine.append('reopen-0', written.get('reopen-0')!.length - 1, [newEvent()]), { idempotent: false });
});

t.test('a repeat that joins the same group commit as its original is idempotent too', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  const batch = newEvents(2);
  // Submitted in one turn of the event loop, so that the writer takes them in one commit.
  const [any, anyRepeat] = await Promise.all([engine.append('twice-any', -2, batch), engine.append('twice-any', -2, batch)]);
  t.match(any, { firstEventNumber: 0, lastEventNumber: 1, idempotent: false });
  t.match(anyRepeat, { firstEventNumber: 0, lastEventNumber: 1, idempotent: true, logPosition: any.logPosition }, 'expected version any');
  t.equal(engine.readStreamForward('twice-any', 0, 10).events.length, 2, 'written once');

  const expected = newEvents(1);
  const [first, repeat] = await Promise.all([engine.append('twice-new', -1, expected), engine.append('twice-new', -1, expected)]);
  t.match(first, { firstEventNumber: 0, idempotent: false });
  t.match(repeat, { firstEventNumber: 0, idempotent: true, logPosition: first.logPosition }, 'expected version "no stream"');
  t.equal(engine.readStreamForward('twice-new', 0, 10).events.length, 1, 'written once');

  const mixed = await Promise.allSettled([engine.append('twice-mixed', -1, expected.slice(0, 1)), engine.append('twice-mixed', -1, [expected[0], ...newEvents(1)])]);
  t.equal(mixed[0].status, 'fulfilled');
  t.match(mixed[1], { status: 'rejected', reason: { code: Errors.wrongExpectedVersion.code } }, 'a partial repeat in the same commit is a wrong expected version');
});

t.test('the group commit under way can be awaited, and settles once its writes are acknowledged', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  const access = engine.scavengeAccess();
  t.equal(access.commitWithClientsWaiting(), undefined, 'none before any write');
  const acknowledged: number[] = [];
  const appends = [0, 1, 2].map((stream) => engine.append(`under-way-${stream}`, -2, newEvents(2)).then(() => acknowledged.push(stream)));
  const commit = access.commitWithClientsWaiting();
  t.ok(commit, 'one is under way once writes are submitted');
  await commit;
  t.ok(acknowledged.length > 0, `the writes it carried were acknowledged first (${acknowledged.length})`);
  await Promise.all(appends);
  await access.commitWithClientsWaiting();
  t.equal(access.commitWithClientsWaiting(), undefined, 'none once every write is acknowledged');
  await engine.close();
});

/** `events` packed one after the other into one block, as a projection's emitter packs them. */
function packed(events: NewEvent[]): PackedInBlock[] {
  const block = Buffer.alloc(events.reduce((total, event) => total + 16 + event.data.length + event.metadata.length, 0) + 7);
  let at = 7;
  return events.map((event) => {
    const idStart = at;
    writeUuid(block, idStart, event.eventId);
    const dataEnd = idStart + 16 + event.data.copy(block, idStart + 16);
    at = dataEnd + event.metadata.copy(block, dataEnd);
    return new PackedInBlock(block, idStart, dataEnd, at, event.eventType, event.isJson);
  });
}

t.test('packed events are written as the same events given one object each, and checked the same', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  const events = [...newEvents(6), { ...newEvent(), metadata: Buffer.alloc(0), isJson: false }, { ...newEvent(), data: Buffer.from('héllo ✓') }];
  await engine.append('as-objects', -1, events);
  await engine.append('as-packed', -1, packed(events), { followUp: true });
  const fields = (record: EventRecord) => [record.eventNumber, record.eventId, record.eventType, record.flags, record.data.toString('hex'), record.metadata.toString('hex')];
  const expected = engine.readStreamForward('as-objects', 0, 100).events.map(fields);
  t.same(engine.readStreamForward('as-packed', 0, 100).events.map(fields), expected, 'ids, types, flags, data and metadata are equal');
  await engine.close();
  const reopened = await openEngine(directory);
  t.same(reopened.readStreamForward('as-packed', 0, 100).events.map(fields), expected, 'and so they stay after a reopen (checksums hold)');

  const [first] = packed([newEvent()]);
  t.equal(first.eventId.length, 36, 'a packed event tells its id as text when asked');
  const untyped = new PackedInBlock(first.block, first.idStart, first.dataEnd, first.metadataEnd, '', true);
  await t.rejects(reopened.append('as-packed', -2, [untyped]), { code: Errors.invalidEvent.code }, 'an empty type is refused');
  const huge = packed([{ ...newEvent(), data: Buffer.alloc(RECORD_PAYLOAD_BYTES_MAX) }]);
  await t.rejects(reopened.append('as-packed', -2, huge), { code: Errors.eventTooLarge.code }, 'so is an event too large for a record');
  t.equal(reopened.readStreamForward('as-packed', 0, 100).events.length, events.length, 'refused appends wrote nothing');
});
