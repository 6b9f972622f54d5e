import t from 'tap';
import { openEngine, tempDirectory, engineOptions } from '../../helpers/engine.js';
import { TestRandom, testSeed } from '../../helpers/random.js';
import { Clock, FIXTURE_STREAMS, fixtureKeeps, writeFixture } from '../../helpers/scavenge-fixture.js';
import {
  chunkBytes, identify, readAll, readAllEvents, readStreams, runScavenge, scavengerFor, writeScavengePoint,
} from '../../helpers/scavenge.js';
import { readScavengeState } from '../../../src/maint/backup/scavenge-state.js';

/**
 * Proves the discard rules end to end on a real engine: after a scavenge $all shows exactly the
 * events the rules keep ($tb, $maxCount, $maxAge against the point's EffectiveNow with an
 * injected clock, hard and soft deletes, the latest metadata record, the last event of every
 * stream), stream reads are unchanged, the bytes on disk fall, and all of it holds after a restart.
 */
t.test('a scavenge removes what the rules discard and nothing a reader sees', async (t) => {
  const random = new TestRandom(testSeed(t));
  const directory = tempDirectory(t);
  const clock = new Clock(Date.UTC(2024, 0, 1));
  const engine = await openEngine(directory, { clock: clock.now });
  await writeFixture(engine, random, clock);
  const point = await writeScavengePoint(engine, 0);
  // Written after the point: kept whatever the rules say.
  await engine.append('counted', -2, [{ eventId: random.uuid(), eventType: 'After', data: Buffer.from('{}'), metadata: Buffer.alloc(0), isJson: true }]);
  const before = readAllEvents(engine);
  const streamsBefore = readStreams(engine, FIXTURE_STREAMS);
  const bytesBefore = chunkBytes(engineOptions(directory).dbPath);
  const expected = before.filter((event) => fixtureKeeps(event, before, point)).map(identify);
  t.ok(expected.length < before.length / 2 + 60, 'the fixture makes much removable');

  const scavenger = scavengerFor(engine, engineOptions(directory).indexPath);
  const outcome = await runScavenge(scavenger, point);
  t.equal(outcome.result, 'Success', 'the scavenge completes');
  t.ok(outcome.spaceSaved > 0, 'space saved is reported');
  t.same(readAll(engine), expected, '$all shows exactly the events the rules keep');
  t.same(readStreams(engine, FIXTURE_STREAMS), streamsBefore, 'stream reads are unchanged');
  t.same(engine.readStreamForward('$$meta-many', 0, 100).events.map((event) => event.eventNumber), [4], 'a metadata stream keeps its latest record');
  t.equal(engine.getStreamMetadata('counted').metadata.maxCount, 5, 'metadata still applies');
  t.ok(chunkBytes(engineOptions(directory).dbPath) < bytesBefore * 0.7, 'the bytes on disk fall');
  t.equal(scavenger.checkpoint()?.stage, 'Done', 'the checkpoint ends at Done');
  scavenger.close();
  t.equal(readScavengeState(engineOptions(directory).indexPath).stage, 'Done', 'a backup reads the stage Done from the file');

  await engine.close();
  const reopened = await openEngine(directory, { clock: clock.now });
  t.same(readAll(reopened), expected, '$all is the same after a restart');
  t.same(readStreams(reopened, FIXTURE_STREAMS), streamsBefore, 'stream reads are the same after a restart');
  await reopened.append('plain', -2, [{ eventId: random.uuid(), eventType: 'Later', data: Buffer.from('{}'), metadata: Buffer.alloc(0), isJson: true }]);
  t.equal(reopened.readEvent('plain', -1).event?.eventType, 'Later', 'appends go on after a scavenge');
});
