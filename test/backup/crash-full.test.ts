// A full backup into a folder that already holds a backup of the node, killed part way, leaves a
// folder that verifies and restores, as a differential one does (crash.test.ts): it copies every
// chunk again and writes truncate.chk too, so its order matters as much. It is killed after each
// chunk is put in place, after each checkpoint and after its first deletion.
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { backup } from '../../src/maint/backup/backup.js';
import { verifyBackup } from '../../src/maint/backup/verify.js';
import { dataArgs } from '../helpers/backup.js';
import { CliProcess } from '../helpers/cli.js';
import { tempDirectory } from '../helpers/engine.js';
import { killedBackupScenario, leftovers, restoredCounts, waitForStop } from '../helpers/killed-backup.js';

t.test('a full backup over an earlier one, killed part way, leaves a restorable backup', async (t) => {
  const directory = tempDirectory(t);
  const { source, base, before, after, changes } = await killedBackupScenario(directory, false);
  const steps = changes.flatMap((change, index) => {
    const wanted = (change.startsWith('placed') && change.includes('/db/')) || change.startsWith('removed');
    return wanted ? [index + 1] : [];
  }).filter((step, position, all) => !changes[step - 1].startsWith('removed') || !changes[all[position - 1] - 1]?.startsWith('removed'));
  t.ok(steps.length >= 8, `${steps.length} steps: every chunk and checkpoint put in place, and the first deletion`);

  for (const step of steps) {
    await t.test(`killed after change ${step}: ${changes[step - 1].replace(directory, '')}`, async (t) => {
      const folder = join(directory, `killed-${step}`);
      cpSync(base, folder, { recursive: true });
      const child = new CliProcess(['backup', folder, ...dataArgs(directory)], { env: { SVC_TEST_BACKUP_STOP_AFTER: String(step) } });
      t.teardown(() => child.stop('SIGKILL'));
      await waitForStop(child, step);
      await child.stop('SIGKILL');

      const verified = await verifyBackup({ source: folder });
      t.match(verified.interrupted, { kind: 'full', generation: 2 }, 'verify passes the folder and names the interrupted run');
      const expected = verified.holds === 'previous-backup' ? before : after;
      t.same(await restoredCounts(folder, join(directory, `restored-${step}`)), expected, `it restores to every event of the ${verified.holds}`);

      const finished = await backup({ ...source, destination: folder, differential: true });
      t.equal(finished.generation, 2, 'a differential backup then completes it');
      t.same(leftovers(folder), [], 'and leaves no temp file, stale lock or .old file');
    });
  }
});
