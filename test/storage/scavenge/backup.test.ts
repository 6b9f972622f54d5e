import { join } from 'node:path';
import t from 'tap';
import { Errors } from '../../../src/common/errors.js';
import { dataArgs, runJson } from '../../helpers/backup.js';
import { engineOptions, openEngine, tempDirectory } from '../../helpers/engine.js';
import { TestRandom, testSeed } from '../../helpers/random.js';
import { Clock, FIXTURE_STREAMS, writeFixture } from '../../helpers/scavenge-fixture.js';
import { readAll, readStreams, runScavenge, scavengerFor, writeScavengePoint } from '../../helpers/scavenge.js';

/**
 * Proves the contract with `svcdb backup` on the real scavenging.db: while a scavenge rests
 * stopped (not Done) a backup of the running node is refused; once it is done, a backup of the
 * scavenged (rewritten, merged) chunks verifies and restores to the same reads.
 */
t.test('a backup refuses an unfinished scavenge and restores a finished one', async (t) => {
  const random = new TestRandom(testSeed(t));
  const directory = tempDirectory(t);
  const source = join(directory, 'source');
  const clock = new Clock(Date.UTC(2024, 0, 1));
  const engine = await openEngine(source, { clock: clock.now });
  await writeFixture(engine, random, clock);
  const point = await writeScavengePoint(engine, 0);
  const scavenger = scavengerFor(engine, engineOptions(source).indexPath);
  const controller = new AbortController();
  const stopped = await runScavenge(scavenger, point, {
    signal: controller.signal, observer: { progress: (progress) => progress.stage === 'ExecutingChunks' && controller.abort() },
  });
  t.equal(stopped.result, 'Stopped', 'the scavenge is stopped in chunk execution');
  const refused = await runJson(['backup', join(directory, 'refused'), ...dataArgs(source)]);
  t.equal(refused.json.error?.code, Errors.backupScavengeRunning.code, 'a backup is refused while the scavenge is not done');

  t.equal((await runScavenge(scavenger, point)).result, 'Success', 'the scavenge resumes and completes');
  scavenger.close();
  const all = readAll(engine);
  const streams = readStreams(engine, FIXTURE_STREAMS);
  const folder = join(directory, 'backup');
  const backup = await runJson(['backup', folder, ...dataArgs(source)]);
  t.equal(backup.code, 0, `the backup succeeds ${backup.exit.stderr}`);
  t.equal((await runJson(['backup', 'verify', folder])).code, 0, 'it verifies');
  await engine.close();

  const restored = join(directory, 'restored');
  const restore = await runJson(['restore', folder, ...dataArgs(restored)]);
  t.equal(restore.code, 0, `it restores ${restore.exit.stderr}`);
  const node = await openEngine(restored, { clock: clock.now });
  t.same(readAll(node), all, 'the restored node has the scavenged $all');
  t.same(readStreams(node, FIXTURE_STREAMS), streams, 'and the same stream reads');
});
