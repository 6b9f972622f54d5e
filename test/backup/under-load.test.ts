// Backups of a node that keeps taking writes: `svcdb backup` runs as a child process against the
// data directories of an engine that holds the lock in this process and appends all along. Each
// backup is restored into fresh directories and a node started there.
import { join } from 'node:path';
import t from 'tap';
import { AppendLoad, checkRestoredNode, dataArgs, runJson, type BackupJson } from '../helpers/backup.js';
import { openEngine, tempDirectory } from '../helpers/engine.js';

const STREAMS = ['load-a', 'load-b', 'load-c', 'load-d'];

t.test('full then differential backups under concurrent appends restore to nodes with every acknowledged event', async (t) => {
  const directory = tempDirectory(t);
  const destination = join(directory, 'backup');
  const engine = await openEngine(join(directory, 'source'));
  const load = new AppendLoad(engine, STREAMS);
  t.teardown(async () => {
    await load.stop();
    await engine.close();
  });
  await load.reached(300);

  const beforeFull = load.snapshot();
  const countBeforeFull = load.count;
  const full = await runJson<BackupJson>(['backup', destination, ...dataArgs(join(directory, 'source'))]);
  t.equal(full.code, 0, `full backup exits 0 ${full.exit.stderr}`);
  t.equal(full.json.kind, 'full');
  t.ok(load.count > countBeforeFull, 'the node acknowledged appends while the full backup ran');
  const restoredFull = join(directory, 'restored-full');
  const restoreFull = await runJson(['restore', destination, ...dataArgs(restoredFull)]);
  t.equal(restoreFull.code, 0, `restore of the full backup exits 0 ${restoreFull.exit.stderr}`);

  await load.reached(load.count + 300);
  const beforeDifferential = load.snapshot();
  const countBeforeDifferential = load.count;
  const differential = await runJson<BackupJson>(['backup', destination, '--differential', ...dataArgs(join(directory, 'source'))]);
  t.equal(differential.code, 0, `differential backup exits 0 ${differential.exit.stderr}`);
  t.ok(load.count > countBeforeDifferential, 'the node acknowledged appends while the differential backup ran');
  t.ok(differential.json.filesSkipped > 0, 'the differential backup kept what it had');
  const restoredDifferential = join(directory, 'restored-differential');
  const restoreDifferential = await runJson(['restore', destination, ...dataArgs(restoredDifferential)]);
  t.equal(restoreDifferential.code, 0, `restore of the differential backup exits 0 ${restoreDifferential.exit.stderr}`);

  await load.stop();
  await engine.settleIndex();
  await t.test('the node restored from the full backup', async (t) => {
    const restored = await openEngine(restoredFull);
    t.teardown(() => restored.close());
    await checkRestoredNode(t, restored, engine, beforeFull);
  });
  await t.test('the node restored from the differential backup', async (t) => {
    const restored = await openEngine(restoredDifferential);
    t.teardown(() => restored.close());
    await checkRestoredNode(t, restored, engine, beforeDifferential);
  });
});
