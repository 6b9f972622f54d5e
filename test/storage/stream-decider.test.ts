/**
 * The stream rules on their own: a StreamDecider over stream state kept in plain maps, with no
 * log, index or disk. Each request goes through a commit as the log appender makes one.
 */
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { Errors, type SvcError } from '../../src/common/errors.js';
import { StreamDecider } from '../../src/storage/streams/decider.js';
import { DELETED_EVENT_NUMBER, EVENT_NUMBER_MAX_TEXT, TOMBSTONE_EVENT_TYPE } from '../../src/storage/streams/stream-metadata.js';
import type { NewEvent, WriteRequest, WriteResult } from '../../src/storage/streams/write-types.js';
import { newEvents } from '../helpers/engine.js';
import { MemoryStreams, commitRequests, type Decided } from '../helpers/stream-state.js';

const RECENT_IDS_MAX = 1000;

function setUp(): { decider: StreamDecider; streams: MemoryStreams; commit: (...requests: WriteRequest[]) => Decided[]; one: (request: WriteRequest) => Decided } {
  const streams = new MemoryStreams();
  const decider = new StreamDecider(streams, RECENT_IDS_MAX, () => 1_700_000_000_000);
  const commit = (...requests: WriteRequest[]) => commitRequests(decider, streams, requests);
  return { decider, streams, commit, one: (request) => commit(request)[0] };
}

function append(streamName: string, expectedVersion: number, events: NewEvent[]): WriteRequest {
  return { kind: 'append', streamName, expectedVersion, events };
}

function metadataEvent(text: string, isJson = true): NewEvent {
  return { eventId: randomUUID(), eventType: '$metadata', data: Buffer.from(text), metadata: Buffer.alloc(0), isJson };
}

function setMetadata(streamName: string, text: string, isJson = true): WriteRequest {
  return append(`$$${streamName}`, -2, [metadataEvent(text, isJson)]);
}

function softDelete(streamName: string, expectedVersion = -2): WriteRequest {
  return { kind: 'softDelete', streamName, expectedVersion, events: [] };
}

function hardDelete(streamName: string): WriteRequest {
  const tombstone: NewEvent = { eventId: randomUUID(), eventType: TOMBSTONE_EVENT_TYPE, data: Buffer.alloc(0), metadata: Buffer.alloc(0), isJson: false };
  return { kind: 'hardDelete', streamName, expectedVersion: -2, events: [tombstone] };
}

function written(decided: Decided): Extract<Decided, { kind: 'written' }> {
  if (decided.kind !== 'written') throw new Error(`expected a write, got ${decided.kind}: ${decided.kind === 'refused' ? decided.error.message : ''}`);
  return decided;
}

function answered(decided: Decided): WriteResult {
  if (decided.kind !== 'answered') throw new Error(`expected an answer without a write, got ${decided.kind}`);
  return decided.result;
}

function refusal(decided: Decided): SvcError {
  if (decided.kind !== 'refused') throw new Error(`expected a refusal, got ${decided.kind}`);
  return decided.error as SvcError;
}

t.test('every form of expected version is checked against the stream', async (t) => {
  const { streams, one } = setUp();
  written(one(append('orders', -1, newEvents(3))));
  const wrong: Array<[string, string, number, number]> = [
    ['a number above the last event', 'orders', 5, 2],
    ['a number below the last event', 'orders', 1, 2],
    ['no stream (-1) for a stream with events', 'orders', -1, 2],
    ['stream exists (-4) for a stream that never existed', 'nothing', -4, -1],
    ['a number for a stream that never existed', 'nothing', 0, -1],
  ];
  for (const [label, streamName, expectedVersion, current] of wrong) {
    const error = refusal(one(append(streamName, expectedVersion, newEvents(1))));
    t.ok(Errors.wrongExpectedVersion.is(error), `${label}: wrong expected version`);
    t.same(error.details, { stream: streamName, expected: expectedVersion, current, repeatedEvents: 0 }, `${label}: the error gives the current version`);
  }
  t.same(streams.ids('orders').length, 3, 'the refused appends wrote nothing');
  t.equal(written(one(append('orders', 2, newEvents(1)))).result.firstEventNumber, 3, 'the last event number is accepted');
  t.equal(written(one(append('orders', -4, newEvents(1)))).result.firstEventNumber, 4, 'stream exists (-4) is accepted for a stream with events');
  t.equal(written(one(append('orders', -2, newEvents(1)))).result.firstEventNumber, 5, 'any (-2) is accepted');
  t.equal(written(one(append('fresh', -1, newEvents(1)))).result.firstEventNumber, 0, 'no stream (-1) is accepted for a new stream');
  written(one(setMetadata('described', '{"$maxCount":3}')));
  t.equal(written(one(append('described', -4, newEvents(1)))).result.firstEventNumber, 0, 'a stream with only metadata exists (-4)');
});

t.test('a repeat of written events is answered with the original result and writes nothing', async (t) => {
  const { streams, one } = setUp();
  const events = newEvents(3);
  const original = written(one(append('repeat', -1, events))).result;
  const logEnd = streams.end;
  const exact = answered(one(append('repeat', -1, events)));
  t.same(exact, { ...original, idempotent: true }, 'with the same exact expected version');
  const any = answered(one(append('repeat', -2, events)));
  t.same(any, { ...original, idempotent: true }, 'with expected version any, found among recent ids');
  const later = answered(one(append('repeat', -2, events.slice(1))));
  t.same([later.firstEventNumber, later.lastEventNumber, later.idempotent], [1, 2, true], 'a later part of the write is a repeat too');
  const upperCase = answered(one(append('repeat', -1, events.map((event) => ({ ...event, eventId: event.eventId.toUpperCase() })))));
  t.equal(upperCase.idempotent, true, 'ids compare in either case');
  t.equal(streams.end, logEnd, 'nothing was written');
  t.equal(streams.ids('repeat').length, 3);
});

t.test('a partial repeat is a wrong expected version', async (t) => {
  const { streams, one } = setUp();
  const events = newEvents(2);
  written(one(append('mixed', -1, events)));
  for (const expectedVersion of [-1, -2]) {
    const error = refusal(one(append('mixed', expectedVersion, [...events, ...newEvents(1)])));
    t.ok(Errors.wrongExpectedVersion.is(error), `expected version ${expectedVersion}: wrong expected version`);
    t.equal(error.details.repeatedEvents, 2, 'the error counts the events already written');
  }
  t.equal(streams.ids('mixed').length, 2, 'nothing was written');
});

t.test('a hard-deleted stream refuses appends, metadata and deletes for ever', async (t) => {
  const { streams, one } = setUp();
  written(one(append('gone', -1, newEvents(2))));
  const tombstone = written(one(hardDelete('gone')));
  t.equal(tombstone.result.firstEventNumber, DELETED_EVENT_NUMBER, 'the tombstone has the largest event number');
  t.equal(streams.lastEventNumber('gone'), DELETED_EVENT_NUMBER);
  for (const [label, request] of [
    ['an append', append('gone', -2, newEvents(1))], ['metadata', setMetadata('gone', '{}')], ['a soft delete', softDelete('gone')],
    ['a second hard delete', hardDelete('gone')],
  ] as const) {
    const error = refusal(one(request));
    t.ok(Errors.streamDeleted.is(error), `${label} is refused: the stream was deleted`);
    t.equal(error.details.soft, false);
  }
});

t.test('a soft delete writes $tb = max; the first append after it writes $tb = its first event number first', async (t) => {
  const { streams, one } = setUp();
  written(one(append('soft', -1, newEvents(2))));
  written(one(setMetadata('soft', '{"$maxCount":5,"owner":"ops"}')));
  const deleted = written(one(softDelete('soft', 1)));
  t.equal(deleted.writes.length, 1, 'one metadata event');
  t.equal(deleted.writes[0].streamName, '$$soft');
  t.same(JSON.parse(deleted.writes[0].events[0].data.toString()), { $maxCount: 5, owner: 'ops', $tb: Number(EVENT_NUMBER_MAX_TEXT) }, 'other properties kept');
  t.ok(deleted.writes[0].events[0].data.toString().includes(`"$tb":${EVENT_NUMBER_MAX_TEXT}`), '$tb written exactly');
  t.same([deleted.result.firstEventNumber, deleted.result.lastEventNumber], [1, 1], 'the result is the metadata event');
  t.equal(streams.metadata('soft').truncateBefore, DELETED_EVENT_NUMBER);
  t.ok(Errors.streamDeleted.is(refusal(one(append('soft', -4, newEvents(1))))), 'stream exists (-4) is refused: it was deleted');

  const events = newEvents(1);
  const revived = written(one(append('soft', -1, events)));
  t.same(revived.writes.map((write) => write.streamName), ['$$soft', 'soft'], 'the metadata first, then the events');
  t.same(JSON.parse(revived.writes[0].events[0].data.toString()), { $maxCount: 5, owner: 'ops', $tb: 2 }, '$tb is the first new event number');
  t.same([revived.result.firstEventNumber, revived.result.logPosition], [2, revived.writes[1].positions[0]], 'the result is the appended event');
  t.equal(streams.metadata('soft').truncateBefore, 2);
  t.equal(streams.ids('soft')[2], events[0].eventId);
  t.equal(written(one(append('soft', 2, newEvents(1)))).writes.length, 1, 'later appends write their events alone');
});

t.test('metadata written to a soft-deleted stream undeletes it: $tb follows its last event', async (t) => {
  const { one, streams } = setUp();
  written(one(append('undelete', -1, newEvents(3))));
  written(one(softDelete('undelete')));
  const set = written(one(setMetadata('undelete', '{"$maxCount":7}')));
  t.same(set.writes.map((write) => write.streamName), ['$$undelete', '$$undelete'], 'the metadata as sent, then the undelete');
  t.equal(set.writes[0].events[0].data.toString(), '{"$maxCount":7}', 'the client\'s bytes as sent');
  t.same(JSON.parse(set.writes[1].events[0].data.toString()), { $maxCount: 7, $tb: 3 });
  t.same([set.writes[1].firstEventNumber, set.result.logPosition], [set.writes[0].firstEventNumber + 1, set.writes[1].positions[0]]);
  t.same([streams.metadata('undelete').maxCount, streams.metadata('undelete').truncateBefore], [7, 3]);
});

t.test('metadata that is not a JSON object is written as it is, with no undelete', async (t) => {
  const { one } = setUp();
  written(one(append('plain', -1, newEvents(1))));
  written(one(softDelete('plain')));
  for (const [text, isJson] of [['not json at all', false], ['[1,2]', true]] as const) {
    const set = written(one(setMetadata('plain', text, isJson)));
    t.equal(set.writes.length, 1, `${text}: one event`);
    t.equal(set.writes[0].events[0].data.toString(), text, `${text}: stored as sent`);
  }
});

t.test('an empty append to the metadata stream of a soft-deleted stream writes nothing', async (t) => {
  const { one, streams } = setUp();
  written(one(append('quiet', -1, newEvents(1))));
  written(one(softDelete('quiet')));
  const end = streams.end;
  t.equal(answered(one(append('$$quiet', -2, []))).idempotent, false);
  t.equal(streams.end, end, 'nothing was written');
});

t.test('a repeat within one commit sees the writes before it in the commit', async (t) => {
  const { commit, streams } = setUp();
  const events = newEvents(2);
  const other = newEvents(1);
  const [first, exact, any, partial, tail] = commit(
    append('same', -1, events), append('same', -1, events), append('same', -2, events), append('same', -2, [...events, ...newEvents(1)]),
    append('same', -2, other),
  );
  const original = written(first).result;
  for (const [label, decided] of [['exact expected version', exact], ['expected version any', any]] as const) {
    t.same(answered(decided), { ...original, idempotent: true }, `${label}: the original result`);
    t.equal((decided as { whenDurable: boolean }).whenDurable, true, `${label}: answered once the commit is durable`);
  }
  t.equal(refusal(partial).details.repeatedEvents, 2, 'a partial repeat is refused');
  t.equal(written(tail).result.firstEventNumber, 2, 'the next write follows the first');
  t.same(streams.ids('same'), [...events, ...other].map((event) => event.eventId));
});

t.test('a body check runs after the stream checks, and a refusal writes nothing', async (t) => {
  const { one, streams } = setUp();
  let checked = 0;
  const check = () => {
    checked++;
    return Errors.invalidArgument.create('stream metadata', 'a test refusal');
  };
  t.ok(Errors.wrongExpectedVersion.is(refusal(one({ ...setMetadata('checked', '{}'), expectedVersion: 4, check }))), 'the stream check first');
  t.equal(checked, 0, 'the body was not checked');
  t.ok(Errors.invalidArgument.is(refusal(one({ ...setMetadata('checked', '{}'), check }))), 'then the body check');
  t.equal(streams.end, 0, 'nothing was written');
});
