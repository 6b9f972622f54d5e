/**
 * An event whose record is exactly as long as the room left in the ongoing chunk. A chunk whose
 * data reached its last byte would put the writer position (and writer.chk) at the next chunk's
 * start while the chunk itself is still ongoing: the log would not reopen ("an earlier chunk is
 * not completed"), and a leader's stream would move on to the next chunk without the
 * completion its replicas wait for. So the record goes to the next chunk instead.
 */
import t from 'tap';
import { Errors } from '../../src/common/errors.js';
import { checkEvents } from '../../src/storage/streams/request-checks.js';
import { ExpectedVersion } from '../../src/storage/streams/stream-metadata.js';
import { SMALL, newEvent, openEngine, tempDirectory } from '../helpers/engine.js';
import type { Engine } from '../../src/storage/engine.js';

const STREAM = 'filled';
const PROBE_PAD = 100;

function padded(pad: number) {
  return newEvent('TestEvent', { pad: 'x'.repeat(pad) });
}

/** Events appended so far. */
let appended = 0;

/** Appends one event with `pad` bytes of padding; returns how many log bytes it took. */
async function append(engine: Engine, pad: number): Promise<number> {
  appended++;
  const before = engine.status().readableEnd;
  await engine.append(STREAM, ExpectedVersion.any, [padded(pad)]);
  return engine.status().readableEnd - before;
}

t.test('a record exactly as long as the room left in the chunk goes to the next chunk, and the log reopens', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  // The record's bytes beyond its padding: every padding byte is one more byte of record.
  const fixed = (await append(engine, PROBE_PAD)) - PROBE_PAD;
  t.equal(await append(engine, PROBE_PAD + 1), fixed + PROBE_PAD + 1, 'a padding byte more makes the record a byte longer');
  while (SMALL.chunkSizeBytes - engine.status().readableEnd > fixed + 2000) await append(engine, 1000);
  const room = SMALL.chunkSizeBytes - engine.status().readableEnd;

  // A record of `room` bytes: it would fill the chunk to its last byte.
  await append(engine, room - fixed);
  const end = engine.status().readableEnd;
  t.equal(engine.status().chunkCount, 2, 'the record went to a new chunk');
  t.equal(end, SMALL.chunkSizeBytes + room, 'after the first chunk, which was completed before it');

  await engine.close();
  const reopened = await openEngine(directory);
  t.ok(reopened.status().readableEnd > end, 'the log reopens and goes on after its end (an epoch record)');
  t.equal(reopened.readStreamForward(STREAM, 0, 1000).events.length, appended, 'and serves every event');
});

t.test('an append as long as a whole chunk is refused; one byte shorter goes into an empty chunk', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  const fixed = checkEvents(STREAM, [padded(0)], Infinity);
  const whole = padded(SMALL.chunkSizeBytes - fixed);
  t.equal(checkEvents(STREAM, [whole], Infinity), SMALL.chunkSizeBytes, 'the event\'s record is as long as a chunk');
  await t.rejects(engine.append(STREAM, ExpectedVersion.any, [whole]), { code: Errors.appendTooLarge.code }, 'it is refused');

  await engine.append(STREAM, ExpectedVersion.any, [padded(SMALL.chunkSizeBytes - fixed - 1)]);
  t.equal(engine.status().chunkCount, 2, 'the longest append fits in a chunk of its own');
  await engine.append(STREAM, ExpectedVersion.any, [padded(PROBE_PAD)]);
  t.equal(engine.status().chunkCount, 3, 'and the chunk is full after it');
  t.equal(engine.readStreamForward(STREAM, 0, 10).events.length, 2, 'both are served');
});
