import t from 'tap';
import { Errors } from '../../../src/common/errors.js';
import type { AllPage } from '../../../src/storage/read/reader.js';
import { engineOptions, openEngine, tempDirectory } from '../../helpers/engine.js';
import { TestRandom, testSeed } from '../../helpers/random.js';
import { Clock, FIXTURE_STREAMS, fixtureKeeps, writeFixture } from '../../helpers/scavenge-fixture.js';
import { identify, readAll, readAllEvents, readStreams, runScavenge, scavengerFor, writeScavengePoint } from '../../helpers/scavenge.js';
import { pollUntil } from '../../helpers/wait.js';

/**
 * Proves that the node keeps working during a scavenge (with 3 threads): appends are
 * acknowledged and readable, stream reads never change, a consumer following the log sees every
 * new event; and that a scavenge and a redaction exclude each other through the chunk-switch lock.
 */
t.test('reads, appends and a follower keep working during a scavenge', async (t) => {
  const random = new TestRandom(testSeed(t));
  const directory = tempDirectory(t);
  const clock = new Clock(Date.UTC(2024, 0, 1));
  const engine = await openEngine(directory, { clock: clock.now });
  await writeFixture(engine, random, clock);
  const point = await writeScavengePoint(engine, -1);
  const before = readAllEvents(engine);
  const streams = readStreams(engine, FIXTURE_STREAMS);

  const followed: string[] = [];
  const consumer = engine.follow({
    name: 'test-follower', fromPosition: engine.status().readableEnd,
    handle: (page: AllPage) => void followed.push(...page.events.filter((event) => event.streamName === 'live').map(identify)),
  });
  t.teardown(() => engine.unfollow(consumer));

  const scavenger = scavengerFor(engine, engineOptions(directory).indexPath);
  let running = true;
  const run = runScavenge(scavenger, point, { threads: 3 }).finally(() => (running = false));
  const acknowledged: string[] = [];
  let readsDuringRun = 0;
  let changedReads = 0;
  let pagePosition = 0;
  while (running || acknowledged.length < 20) {
    const eventId = random.uuid();
    const result = await engine.append('live', -2, [{ eventId, eventType: 'Live', data: Buffer.from('{"live":true}'), metadata: Buffer.alloc(0), isJson: true }]);
    acknowledged.push(`live/${result.firstEventNumber}/${eventId}`);
    if (JSON.stringify(readStreams(engine, FIXTURE_STREAMS)) !== JSON.stringify(streams)) changedReads++;
    // A reader paging $all slowly continues from positions whose records the run may remove.
    const page = engine.readAllForward(pagePosition, 7);
    pagePosition = page.isEnd ? 0 : page.nextPosition;
    if (running) readsDuringRun++;
  }
  t.equal((await run).result, 'Success', 'the scavenge completes');
  t.equal(changedReads, 0, 'stream reads never changed during the run');
  t.ok(readsDuringRun > 0, `${readsDuringRun} rounds of appends and reads ran during the scavenge`);
  t.same(engine.readStreamForward('live', 0, 4096).events.map(identify), acknowledged, 'every acknowledged append is readable');
  const kept = before.filter((event) => fixtureKeeps(event, before, point)).map(identify);
  t.same(readAll(engine), [...kept, ...acknowledged], '$all holds what the rules keep and every new event');
  await pollUntil('the follower sees every new event', () => followed.length >= acknowledged.length);
  t.same(followed, acknowledged, 'the follower saw every new event in order');
  scavenger.close();
});

t.test('a scavenge and a redaction exclude each other', async (t) => {
  const random = new TestRandom(testSeed(t));
  const directory = tempDirectory(t);
  const clock = new Clock(Date.UTC(2024, 0, 1));
  const engine = await openEngine(directory, { clock: clock.now });
  await writeFixture(engine, random, clock);
  const point = await writeScavengePoint(engine, 0);
  const scavenger = scavengerFor(engine, engineOptions(directory).indexPath);

  const redaction = engine.takeChunkSwitchLock('redaction');
  await t.rejects(runScavenge(scavenger, point), { code: Errors.chunkSwitchLocked.code }, 'a scavenge is refused while a redaction holds the lock');
  t.equal(scavenger.checkpoint(), undefined, 'and it wrote nothing');
  engine.releaseChunkSwitchLock(redaction);

  let refused: unknown;
  const run = runScavenge(scavenger, point, {
    observer: { stageStarted: () => {
      try {
        engine.takeChunkSwitchLock('redaction');
      } catch (error) {
        refused ??= error;
      }
    } },
  });
  t.equal((await run).result, 'Success', 'the scavenge completes');
  t.equal((refused as { code?: string } | undefined)?.code, Errors.chunkSwitchLocked.code, 'a redaction is refused while the scavenge runs');
  t.equal(engine.chunkSwitchHolder(), undefined, 'the lock is free once the scavenge is over');
  scavenger.close();
});
