// A differential backup killed at any step leaves a folder that verifies and restores: the backup
// it held before, or the new one, and verify says which; the next backup finishes the job and
// deletes what the killed one left. Each step is a change to the destination (a file staged, put
// in place or deleted, the manifest rewritten): `svcdb backup --differential` runs as a child with
// the testing hook SVC_TEST_BACKUP_STOP_AFTER=N, stops itself after its N-th change and is
// SIGKILLed there, for every N but those that make a state like one already killed in (a further
// temp file in the same directory, a further index file put in place or deleted). An archive
// backup killed part way leaves a temp file that the next archive backup deletes.
//
// The killed folder is checked by `svcdb backup verify` (a child) just before and after the new
// log is committed and in process at the other steps, and restored and read at every step; the
// folder the next run finished is restored and read at those two steps.
import { cpSync, existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import t, { type Test } from 'tap';
import { backup } from '../../src/maint/backup/backup.js';
import { isIndexDataFile } from '../../src/storage/layout.js';
import { verifyBackup, type VerifyResult } from '../../src/maint/backup/verify.js';
import { CliProcess, runCli } from '../helpers/cli.js';
import { dataArgs, runJson } from '../helpers/backup.js';
import { tempDirectory } from '../helpers/engine.js';
import { type Counts, appendUntilChunks, killedBackupScenario, leftovers, restoredCounts, waitForStop } from '../helpers/killed-backup.js';

t.test('a differential backup killed at any step leaves a restorable backup, and the next run finishes it', async (t) => {
  const directory = tempDirectory(t);
  const { source, base, before, after, changes } = await killedBackupScenario(directory, true);
  t.ok(changes.some((change) => change.includes('/db/chunk-')), 'the differential replaces and adds chunks');
  t.ok(changes.some((change) => change.startsWith('removed') && change.includes('/index/')), 'and deletes merged-away index files');
  t.comment(`${changes.length} changes:\n${changes.join('\n')}`);

  // States like one already killed in: a further temp file in the same directory, a further
  // index file put in place or deleted.
  const seen = new Set<string>();
  const steps = changes.flatMap((change, index) => {
    const [verb] = change.split(' ');
    const kind = verb === 'staged' ? `staged ${dirname(change)}` : verb === 'removed' ? verb : isIndexDataFile(basename(change)) ? 'index file' : change;
    if (seen.has(kind)) return [];
    seen.add(kind);
    return [index + 1];
  });
  // The last change before the new log is committed, and the commit: a child verifies these.
  const committing = (change: string) => change.endsWith('/db/chaser.chk') || change.endsWith('/db/proposal.chk');
  for (const step of steps) {
    const change = changes[step - 1];
    await t.test(`killed after change ${step}: ${changes[step - 1].replace(directory, '')}`, async (t) => {
      const folder = join(directory, `killed-${step}`);
      cpSync(base, folder, { recursive: true });
      const child = new CliProcess(['backup', folder, '--differential', ...dataArgs(directory)], {
        env: { SVC_TEST_BACKUP_STOP_AFTER: String(step) },
      });
      t.teardown(() => child.stop('SIGKILL'));
      await waitForStop(child, step);
      const killed = await child.stop('SIGKILL');
      t.equal(killed.signal, 'SIGKILL', 'the backup was killed');

      await checkKilledFolder(t, folder, join(directory, `restored-${step}`), {
        before, after, last: step === changes.length, command: committing(change),
      });

      const finished = await backup({ ...source, destination: folder, differential: true });
      const generation = step === changes.length ? 3 : 2;
      t.equal(finished.generation, generation, `the next differential backup completes generation ${generation}`);
      t.match(finished.completedInterrupted, step === changes.length ? undefined : { kind: 'differential', generation: 2 }, 'and says it finished the interrupted one');
      t.same(leftovers(folder), [], 'no temp file, stale lock or .old file is left');
      const verified = await verifyBackup({ source: folder });
      t.equal(verified.holds, 'last-backup', 'verify passes it as the last backup');
      if (committing(change)) {
        t.same(await restoredCounts(folder, join(directory, `finished-${step}`)), after, 'and it restores to every event of the new backup');
      }
    });
  }
});

interface Generations {
  before: Counts;
  after: Counts;
  /** The kill came after the run's last change: the backup finished. */
  last: boolean;
  /** Check with `svcdb backup verify` as a child rather than in process. */
  command: boolean;
}

async function verifyKilled(t: Test, folder: string, command: boolean): Promise<VerifyResult> {
  if (!command) return verifyBackup({ source: folder });
  const verified = await runJson<VerifyResult>(['backup', 'verify', folder]);
  t.equal(verified.code, 0, `svcdb backup verify exits 0: ${verified.exit.stderr}`);
  if (verified.json.interrupted) {
    const plain = await runCli(['backup', 'verify', folder]);
    t.equal(plain.code, 0);
    const words = verified.json.holds === 'previous-backup' ? 'holds generation 1' : 'holds a newer log than generation 1';
    t.match(plain.stderr, words, `without --json it says so on stderr: "${words}"`);
    t.match(plain.stderr, 'run the backup again to finish it');
  }
  return verified.json;
}

async function checkKilledFolder(t: Test, folder: string, target: string, generations: Generations): Promise<void> {
  const verified = { json: await verifyKilled(t, folder, generations.command) };
  const held = verified.json.holds;
  if (generations.last) {
    t.equal(held, 'last-backup', 'killed after its last change, the backup had finished');
    t.equal(verified.json.generation, 2);
  } else {
    t.ok(held === 'previous-backup' || held === 'interrupted-backup', `verify says which backup it holds: ${held}`);
    t.match(verified.json.interrupted, { kind: 'differential', generation: 2, stillRunning: false }, 'and names the interrupted run');
    t.equal(verified.json.generation, 1, 'the last complete backup is still generation 1');
  }
  const expected = held === 'previous-backup' ? generations.before : generations.after;
  t.same(await restoredCounts(folder, target), expected,
    `a node restored from it holds every event of the ${held === 'previous-backup' ? 'previous' : 'new'} backup and nothing else`);
  t.ok(existsSync(join(folder, 'svcdb.lock')), 'the killed run left its lock behind');
}

t.test('an archive backup killed part way leaves a temp file that the next archive backup deletes', async (t) => {
  const directory = tempDirectory(t);
  await appendUntilChunks(directory, 3);
  const archive = join(directory, 'node.tar.gz');
  const child = new CliProcess(['backup', '--archive', archive, ...dataArgs(directory)], { env: { SVC_TEST_BACKUP_STOP_AFTER: '3' } });
  t.teardown(() => child.stop('SIGKILL'));
  await waitForStop(child, 3);
  await child.stop('SIGKILL');
  const temps = readdirSync(directory).filter((name) => name.startsWith('node.tar.gz.') && name.endsWith('.tmp'));
  t.equal(temps.length, 1, 'the killed run left its temp archive');
  t.notOk(existsSync(archive), 'and no archive under the name');

  const run = await runJson<{ removed: string[] }>(['backup', '--archive', archive, ...dataArgs(directory)]);
  t.equal(run.code, 0, run.exit.stderr);
  t.same(run.json.removed, temps, 'the next archive backup deletes it and says so');
  t.same(readdirSync(directory).filter((name) => name.endsWith('.tmp')), [], 'no temp file is left');
  t.equal((await runJson(['backup', 'verify', archive])).code, 0, 'the new archive verifies');
});
