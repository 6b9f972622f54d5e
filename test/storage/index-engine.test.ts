import t, { type Test } from 'tap';
import { defaultStreamHasher } from '../../src/storage/index/stream-hash.js';
import type { Engine } from '../../src/storage/engine.js';
import { newEvents, openEngine, tempDirectory } from '../helpers/engine.js';

/** A hasher that sends every stream whose name starts with "twin-" to one hash. */
const collidingHasher = (name: string): bigint => (name.startsWith('twin-') ? 0x1234_5678_9abc_def0n : defaultStreamHasher(name));

async function writeInterleaved(engine: Engine, streams: string[], rounds: number): Promise<Map<string, string[]>> {
  const written = new Map<string, string[]>(streams.map((s) => [s, []]));
  for (let round = 0; round < rounds; round++) {
    for (const stream of streams) {
      const events = newEvents(1 + (round % 3));
      await engine.append(stream, -2, events);
      written.get(stream)!.push(...events.map((e) => e.eventId));
    }
  }
  return written;
}

function checkStreams(t: Test, engine: Engine, written: Map<string, string[]>, when: string): void {
  for (const [stream, ids] of written) {
    t.same(engine.readStreamForward(stream, 0, 4096).events.map((e) => e.eventId), ids, `${stream} forward ${when}`);
    t.same(engine.readStreamBackward(stream, -1, 4096).events.map((e) => e.eventId), [...ids].reverse(), `${stream} backward ${when}`);
    t.equal(engine.readEvent(stream, -1).event?.eventId, ids[ids.length - 1], `${stream} last event ${when}`);
  }
}

t.test('streams whose hashes collide are told apart by the log, in memory and in index files', async (t) => {
  const directory = tempDirectory(t);
  let engine = await openEngine(directory, { streamHasher: collidingHasher, memTableEntriesMax: 20 });
  const written = await writeInterleaved(engine, ['twin-a', 'twin-b', 'twin-c', 'single'], 40);
  checkStreams(t, engine, written, 'while written');
  const lastOfA = written.get('twin-a')!.length - 1;
  const extra = newEvents(1);
  t.match(await engine.append('twin-a', lastOfA, extra), { firstEventNumber: lastOfA + 1 }, 'expected version sees only its own stream');
  written.get('twin-a')!.push(extra[0].eventId);
  await engine.close();
  engine = await openEngine(directory, { streamHasher: collidingHasher, memTableEntriesMax: 20 });
  t.ok(engine.indexStats().files.length > 0, 'entries come from index files');
  const fresh = newEvents(1);
  await engine.append('twin-d', -1, fresh);
  t.same(engine.readStreamForward('twin-d', 0, 10).events.map((e) => e.eventId), fresh.map((e) => e.eventId), 'a new colliding stream starts at 0');
  checkStreams(t, engine, written, 'after reopen');
});

t.test('several index levels, then merge-all: lookups unchanged, one file left', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory, { memTableEntriesMax: 10 });
  const streams = Array.from({ length: 25 }, (_, i) => `level-${i}`);
  const written = await writeInterleaved(engine, streams, 12);
  await engine.settleIndex();
  const levels = new Set(engine.indexStats().files.map((file) => file.level));
  t.ok(levels.size >= 2, `files at several levels (${[...levels].join(', ')})`);
  checkStreams(t, engine, written, 'before merge');
  await engine.mergeIndexes();
  t.equal(engine.indexStats().files.length, 1, 'merge-all leaves one file');
  checkStreams(t, engine, written, 'after merge');
});
