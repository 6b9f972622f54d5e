import t, { type Test } from 'tap';
import type { Engine } from '../../../src/storage/engine.js';
import type { ScavengePoint, ScavengeStage } from '../../../src/storage/maintenance/scavenge/types.js';
import { readScavengeState } from '../../../src/maint/backup/scavenge-state.js';
import { engineOptions, openEngine, tempDirectory } from '../../helpers/engine.js';
import { TestRandom, seedOfRun, testSeed } from '../../helpers/random.js';
import { Clock, FIXTURE_STREAMS, writeFixture } from '../../helpers/scavenge-fixture.js';
import { chunkNames, readAllEvents, runScavenge, scavengerFor, writeScavengePoint } from '../../helpers/scavenge.js';

/**
 * Proves that a scavenge stopped in any stage rests there (a backup then refuses), and that the
 * next run to the same point resumes from it and ends with the very database one uninterrupted
 * run makes: the same events in $all at the same positions, the same stream reads, the same
 * chunk files.
 */
async function fixture(t: Test): Promise<{ engine: Engine; directory: string; point: ScavengePoint }> {
  const directory = tempDirectory(t);
  const clock = new Clock(Date.UTC(2024, 0, 1));
  const engine = await openEngine(directory, { clock: clock.now });
  await writeFixture(engine, new TestRandom(seedOfRun()), clock);
  const point = await writeScavengePoint(engine, 0, '11111111-1111-4111-8111-111111111111');
  return { engine, directory, point };
}

function outcomeOf(engine: Engine, directory: string): unknown {
  return {
    // Deletes write event ids of their own: positions, streams and numbers identify events here.
    all: readAllEvents(engine).map((event) => `${event.logPosition}:${event.streamName}/${event.eventNumber}`),
    streams: FIXTURE_STREAMS.map((stream) => engine.readStreamForward(stream, 0, 4096).events.map((event) => `${event.logPosition}:${event.eventId}`)),
    chunks: chunkNames(engineOptions(directory).dbPath),
  };
}

t.test('a stopped scavenge resumes to the result of one uninterrupted run', async (t) => {
  testSeed(t);
  const control = await fixture(t);
  const controlScavenger = scavengerFor(control.engine, engineOptions(control.directory).indexPath);
  t.equal((await runScavenge(controlScavenger, control.point)).result, 'Success', 'the uninterrupted run completes');
  controlScavenger.close();
  const expected = outcomeOf(control.engine, control.directory);

  const stages: ScavengeStage[] = ['Accumulating', 'Calculating', 'ExecutingChunks', 'MergingChunks', 'ExecutingIndex'];
  for (const stage of stages) {
    await t.test(`stopped while ${stage}`, async (t) => {
      const { engine, directory, point } = await fixture(t);
      const { indexPath } = engineOptions(directory);
      const controller = new AbortController();
      let scavenger = scavengerFor(engine, indexPath);
      const stopped = await runScavenge(scavenger, point, {
        signal: controller.signal,
        observer: { progress: (progress) => progress.stage === stage && controller.abort() },
      });
      t.equal(stopped.result, 'Stopped', 'the run stops');
      t.equal(scavenger.checkpoint()?.stage, stage, `the checkpoint rests at ${stage}`);
      t.not(readScavengeState(indexPath).stage, 'Done', 'a backup sees a scavenge that is not done');
      scavenger.close();
      scavenger = scavengerFor(engine, indexPath);
      const stagesSeen: ScavengeStage[] = [];
      const resumed = await runScavenge(scavenger, point, { observer: { stageStarted: (seen) => stagesSeen.push(seen) } });
      scavenger.close();
      t.equal(resumed.result, 'Success', 'the next run completes');
      t.equal(stagesSeen[0], stage, `it resumes at ${stage}`);
      t.same(outcomeOf(engine, directory), expected, 'the database is what one uninterrupted run makes');
    });
  }
});
