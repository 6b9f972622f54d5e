import t from 'tap';
import type { Engine } from '../../src/storage/engine.js';
import type { EventRecord } from '../../src/storage/log/record.js';
import { SKIP_SYSTEM_STREAMS, SKIP_SYSTEM_STREAMS_BUT_METADATA, type AllFilter } from '../../src/storage/read/reader.js';
import { appendUntilChunks, newEvent, newEvents, openEngine, tempDirectory } from '../helpers/engine.js';

/** Every field of an event as plain values, data and metadata as hex. */
function fieldsOf(event: EventRecord): Record<string, unknown> {
  const { kind, logPosition, flags, transactionPosition, transactionOffset, eventNumber, timestamp, eventId, correlationId, streamName, eventType } = event;
  return {
    kind, logPosition, flags, transactionPosition, transactionOffset, eventNumber, timestamp, eventId, correlationId, streamName, eventType,
    data: event.data.toString('hex'), metadata: event.metadata.toString('hex'),
  };
}

function readAll(engine: Engine, filter?: AllFilter): EventRecord[] {
  const events: EventRecord[] = [];
  for (let position = 0; ;) {
    const page = engine.readAllForward(position, 37, filter);
    events.push(...page.events);
    if (page.isEnd) return events;
    position = page.nextPosition;
  }
}

/** Streams of each kind, interleaved: the skipping walk passes over runs of system events in memory and in files. */
async function interleavedLog(engine: Engine): Promise<void> {
  for (let round = 0; round < 12; round++) {
    await engine.append(`orders-${round % 3}`, -2, newEvents(4));
    await engine.append('$ce-orders', -2, newEvents(7, '$>'));
    await engine.append(`$projections-p${round % 2}`, -2, [newEvent('$ProjectionCheckpoint')]);
    if (round % 5 === 0) await engine.setStreamMetadata(`orders-${round % 3}`, -2, { $maxCount: 100 + round });
    await engine.append(`invoices-${round}`, -2, [newEvent('Invoiced', { big: 'y'.repeat(3000 * (round % 2)) })]);
    // Names of one length that differ in their last byte, short and long (past the decoder's kept copy).
    await engine.append(`${'long-'.repeat(40)}${round % 2}`, -2, newEvents(2));
  }
}

t.test('a read that passes over system streams gives every field of the events a plain read gives, whichever chunk they are in', async (t) => {
  // One completed chunk kept in memory: the others are read from their files.
  const engine = await openEngine(tempDirectory(t), { cachedChunksMax: 1 });
  await appendUntilChunks(engine, 'filler-1', 3);
  await interleavedLog(engine);
  await appendUntilChunks(engine, '$system-filler', engine.status().chunkCount + 1);
  await interleavedLog(engine);
  t.ok(engine.status().chunkCount >= 4, 'completed chunks in files and in memory, and the active one');

  const plain = readAll(engine);
  for (const [name, filter, keeps] of [
    ['SKIP_SYSTEM_STREAMS', SKIP_SYSTEM_STREAMS, (stream: string) => !stream.startsWith('$')],
    ['SKIP_SYSTEM_STREAMS_BUT_METADATA', SKIP_SYSTEM_STREAMS_BUT_METADATA, (stream: string) => !stream.startsWith('$') || stream.startsWith('$$')],
  ] as const) {
    const skipping = readAll(engine, filter);
    const expected = plain.filter((event) => keeps(event.streamName));
    t.ok(expected.length > 100, `${name}: the log holds events of both kinds (${expected.length} kept of ${plain.length})`);
    t.same(skipping.map(fieldsOf), expected.map(fieldsOf), `${name}: the same events with the same fields, data and metadata`);
    t.notOk(skipping.some((event) => event.data.buffer instanceof SharedArrayBuffer), `${name}: data is never a view of the log's shared memory`);
  }
});

t.test("an event's data read after the log moved on (the chunk completed) is the data it was written with", async (t) => {
  const engine = await openEngine(tempDirectory(t));
  const written = newEvents(20);
  await engine.append('orders-1', -2, written);
  await engine.append('$ce-orders', -2, newEvents(5, '$>'));
  const page = engine.readAllForward(0, 100, SKIP_SYSTEM_STREAMS);
  const chunksBefore = engine.status().chunkCount;
  await appendUntilChunks(engine, 'orders-2', chunksBefore + 2);
  const first = page.events.filter((event) => event.streamName === 'orders-1');
  t.equal(first.length, written.length);
  t.same(first.map((event) => event.data.toString('utf8')), written.map((event) => event.data.toString('utf8')), 'data as written, read after two more chunks');
  t.same(first.map((event) => event.eventId), written.map((event) => event.eventId), 'ids as written');
});
