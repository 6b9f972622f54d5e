import Database from 'better-sqlite3';
import { join } from 'node:path';
import t from 'tap';
import { defaultStreamHasher } from '../../../src/storage/index/stream-hash.js';
import { engineOptions, openEngine, tempDirectory } from '../../helpers/engine.js';
import { TestRandom, testSeed } from '../../helpers/random.js';
import { readAll, readStreams, runScavenge, scavengerFor, writeScavengePoint } from '../../helpers/scavenge.js';
import type { Engine } from '../../../src/storage/engine.js';

/**
 * Proves that streams whose hashes collide are kept apart by name: the metadata of one never
 * removes the events of the other, whether the collision is seen in the same scavenge or only
 * in a later one (the first stream's data then moves to the by-name tables), with a hash-users
 * cache far smaller than the number of streams.
 */
const TWIN_HASH = 0x1234_5678_9abc_def0n;
const hasher = (name: string): bigint => (name === 'twin-a' || name === 'twin-b' ? TWIN_HASH : defaultStreamHasher(name));

async function appendEvents(engine: Engine, random: TestRandom, stream: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await engine.append(stream, -2, [{ eventId: random.uuid(), eventType: 'E', data: Buffer.from(JSON.stringify({ pad: 'c'.repeat(700) })), metadata: Buffer.alloc(0), isJson: true }]);
  }
}

t.test('colliding streams are kept apart by name', async (t) => {
  const random = new TestRandom(testSeed(t));
  const directory = tempDirectory(t);
  const { indexPath } = engineOptions(directory);
  const engine = await openEngine(directory, { streamHasher: hasher });
  // Many other streams overflow the hash-users cache of 4.
  for (let i = 0; i < 20; i++) await appendEvents(engine, random, `filler-${i}`, 3);
  await appendEvents(engine, random, 'twin-a', 40);
  await engine.setStreamMetadata('twin-a', -2, { $maxCount: 2 }, random.uuid());
  let scavenger = scavengerFor(engine, indexPath, 4);
  t.equal((await runScavenge(scavenger, await writeScavengePoint(engine, 0))).result, 'Success', 'the first scavenge completes');
  t.same(engine.readStreamForward('twin-a', 0, 100).events.map((event) => event.eventNumber), [38, 39], 'twin-a keeps its last 2');
  t.equal(readAll(engine).filter((name) => name.startsWith('twin-a/')).length, 2, 'twin-a lost its old events in $all');

  // twin-b appears only now: the next scavenge finds the collision.
  await appendEvents(engine, random, 'twin-b', 30);
  await appendEvents(engine, random, 'twin-a', 10);
  const twinB = readStreams(engine, ['twin-b']);
  scavenger.close();
  scavenger = scavengerFor(engine, indexPath, 4);
  t.equal((await runScavenge(scavenger, await writeScavengePoint(engine, -1))).result, 'Success', 'the second scavenge completes');
  t.same(readStreams(engine, ['twin-b']), twinB, 'twin-b, without metadata, keeps every event');
  t.equal(readAll(engine).filter((name) => name.startsWith('twin-b/')).length, 30, 'every twin-b event is still in $all');
  t.same(engine.readStreamForward('twin-a', 0, 100).events.map((event) => event.eventNumber), [48, 49], 'twin-a still keeps its last 2');
  t.same(readAll(engine).filter((name) => name.startsWith('twin-a/')).map((name) => name.split('/')[1]), ['48', '49'], "twin-a's older events left $all");
  t.equal(readAll(engine).filter((name) => name.startsWith('filler-')).length, 60, 'other streams keep everything');
  scavenger.close();

  const db = new Database(join(indexPath, 'scavenging', 'scavenging.db'), { readonly: true });
  t.teardown(() => db.close());
  t.same((db.prepare('SELECT key FROM HashCollisions ORDER BY key').pluck().all()), ['twin-a', 'twin-b'], 'both names are listed as colliding');
  t.equal(db.prepare('SELECT COUNT(*) FROM OriginalStreamDataCollisions WHERE key = ?').pluck().get('twin-a'), 1, "twin-a's data is kept by name");
});
