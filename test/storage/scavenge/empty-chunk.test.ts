import t from 'tap';
import { engineOptions, openEngine, tempDirectory } from '../../helpers/engine.js';
import { TestRandom, testSeed } from '../../helpers/random.js';
import { readAll, runScavenge, scavengerFor, writeScavengePoint } from '../../helpers/scavenge.js';
import type { Engine } from '../../../src/storage/engine.js';

/**
 * Regression: a chunk whose every record a scavenge removes keeps its logical size (its log
 * positions), so later merges, reads across it and a restart find the log whole.
 */
async function appendPadded(engine: Engine, random: TestRandom, stream: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await engine.append(stream, -2, [{ eventId: random.uuid(), eventType: 'E', data: Buffer.alloc(1500, 0x61), metadata: Buffer.alloc(0), isJson: false }]);
  }
}

t.test('a chunk emptied by a scavenge keeps its place in the log', async (t) => {
  const random = new TestRandom(testSeed(t));
  const directory = tempDirectory(t);
  const { indexPath } = engineOptions(directory);
  const engine = await openEngine(directory);
  await appendPadded(engine, random, 'kept', 5);
  await engine.completeActiveChunk();
  // Chunk 1 holds only events of a stream that is then hard deleted.
  await appendPadded(engine, random, 'doomed', 30);
  await engine.completeActiveChunk();
  await appendPadded(engine, random, 'kept', 5);
  await engine.deleteStream('doomed', -2, true);
  const scavenger = scavengerFor(engine, indexPath);
  t.equal((await runScavenge(scavenger, await writeScavengePoint(engine, 0), { mergeChunks: false })).result, 'Success', 'the first scavenge completes');
  const all = readAll(engine);
  t.same(all.filter((event) => event.startsWith('doomed/')).map((event) => event.split('/')[1]), [String(Number.MAX_SAFE_INTEGER)], 'only the tombstone of doomed is left');
  t.equal(engine.scavengeAccess().chunkFiles()[1].dataBytes, 0, 'chunk 1 holds no record');

  await appendPadded(engine, random, 'kept', 3);
  t.equal((await runScavenge(scavenger, await writeScavengePoint(engine, 0), { mergeChunks: true })).result, 'Success', 'a second scavenge merges it');
  const after = readAll(engine);
  t.same(after.slice(0, all.length), all, '$all is the same after the merge');
  t.equal(engine.readStreamForward('kept', 0, 100).events.length, 13, 'the kept stream reads whole');
  scavenger.close();
  await engine.close();
  const reopened = await openEngine(directory);
  t.same(readAll(reopened), after, '$all is the same after a restart');
  await appendPadded(reopened, random, 'kept', 2);
  t.equal(reopened.readStreamForward('kept', 0, 100).events.length, 15, 'appends go on');
});
