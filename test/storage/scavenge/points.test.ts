import t from 'tap';
import { Errors } from '../../../src/common/errors.js';
import type { ScavengeProgress } from '../../../src/storage/maintenance/scavenge/types.js';
import { engineOptions, newEvents, openEngine, tempDirectory } from '../../helpers/engine.js';
import { TestRandom, testSeed } from '../../helpers/random.js';
import { Clock, writeFixture } from '../../helpers/scavenge-fixture.js';
import { POINTS_STREAM, readAll, runScavenge, scavengerFor, writeScavengePoint } from '../../helpers/scavenge.js';

/**
 * Proves how runs relate to scavenge points: completing the active chunk closes the chunk of a
 * point; a run completes that chunk itself when a crash left it ongoing; a second run accumulates
 * only the chunks after the first point; a point already scavenged is not scavenged again; a
 * point that is not in the log is refused with a coded error.
 */
t.test('completing the active chunk starts a new one', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  await engine.append('s', -2, newEvents(3));
  const chunks = engine.status().chunkCount;
  const next = await engine.completeActiveChunk();
  t.equal(engine.status().chunkCount, chunks + 1, 'a chunk was added');
  t.equal(next, chunks * engineOptions(directory).chunkSizeBytes!, 'the writer moved to the start of the new chunk');
  t.equal(await engine.completeActiveChunk(), next, 'an empty active chunk is left as it is');
  t.equal(engine.status().chunkCount, chunks + 1, 'no chunk was added for it');
  await engine.append('s', 2, newEvents(2));
  t.equal(engine.readStreamForward('s', 0, 10).events.length, 5, 'appends go on in the new chunk');
  await engine.close();
  const reopened = await openEngine(directory);
  t.equal(reopened.readStreamForward('s', 0, 10).events.length, 5, 'the log opens with every event');
  t.equal(reopened.status().chunkCount, chunks + 1, 'and the same chunks');
});

t.test('a run completes the chunk of its point when it is still active', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  await engine.append('counted', -2, newEvents(20));
  await engine.setStreamMetadata('counted', -2, { $maxCount: 1 });
  // As a crash between writing the point and completing its chunk leaves it.
  const written = await engine.append(POINTS_STREAM, -2, [{ eventId: '22222222-2222-4222-8222-222222222222', eventType: '$scavengePoint', data: Buffer.from('{"threshold":0}'), metadata: Buffer.alloc(0), isJson: true }]);
  const point = { number: 0, position: written.logPosition, effectiveNowMs: Date.now(), threshold: 0 };
  const chunks = engine.status().chunkCount;
  const scavenger = scavengerFor(engine, engineOptions(directory).indexPath);
  const executed: number[] = [];
  const outcome = await runScavenge(scavenger, point, { observer: { chunkExecuted: (report) => report.wasScavenged && executed.push(report.chunkEndNumber) } });
  t.equal(outcome.result, 'Success', 'the run completes');
  t.equal(engine.status().chunkCount, chunks + 1, 'the point chunk was completed');
  t.same(executed, [chunks - 1], 'and executed');
  t.same(engine.readStreamForward('counted', 0, 100).events.map((event) => event.eventNumber), [19], 'the stream keeps its last event');
  t.equal(readAll(engine).filter((event) => event.startsWith('counted/')).length, 1, '$all lost the others');
  scavenger.close();
});

t.test('a second run accumulates only the chunks after the first point', async (t) => {
  const random = new TestRandom(testSeed(t));
  const directory = tempDirectory(t);
  const clock = new Clock(Date.UTC(2024, 0, 1));
  const engine = await openEngine(directory, { clock: clock.now });
  await writeFixture(engine, random, clock);
  const first = await writeScavengePoint(engine, 0);
  const scavenger = scavengerFor(engine, engineOptions(directory).indexPath);
  t.equal((await runScavenge(scavenger, first)).result, 'Success', 'the first run completes');
  const again = await runScavenge(scavenger, first);
  t.same(again, { result: 'Success', spaceSaved: 0, maxChunkScavenged: -1 }, 'a point already scavenged is done at once');

  await engine.append('counted', -2, newEvents(30));
  const second = await writeScavengePoint(engine, 0);
  const accumulated: ScavengeProgress[] = [];
  const outcome = await runScavenge(scavenger, second, { observer: { progress: (progress) => progress.stage === 'Accumulating' && accumulated.push(progress) } });
  t.equal(outcome.result, 'Success', 'the second run completes');
  const firstChunk = Math.floor(first.position / engineOptions(directory).chunkSizeBytes!);
  t.ok(accumulated.length > 0, 'the second run accumulated');
  t.ok(accumulated.every((progress) => progress.chunksDone > firstChunk), `only chunks after the first point's chunk ${firstChunk} were read`);
  t.same(engine.readStreamForward('counted', 0, 4096).events.map((event) => event.eventNumber), [85, 86, 87, 88, 89], 'the new events were scavenged by the old metadata');
  scavenger.close();
});

t.test('a point that is not in the log is refused', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  await engine.append('s', -2, newEvents(3));
  const scavenger = scavengerFor(engine, engineOptions(directory).indexPath);
  const point = { number: 0, position: engine.status().readableEnd + 1000, effectiveNowMs: Date.now(), threshold: 0 };
  await t.rejects(runScavenge(scavenger, point), { code: Errors.invalidArgument.code }, 'a position past the end of the log');
  t.equal(engine.chunkSwitchHolder(), undefined, 'the lock is released');
  scavenger.close();
});
