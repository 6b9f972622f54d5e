// --archive: a full backup of a running node as one .tar.gz, restored by svcdb restore like a folder.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { AppendLoad, checkRestoredNode, dataArgs, runJson } from '../helpers/backup.js';
import { openEngine, tempDirectory } from '../helpers/engine.js';

t.test('an archive of a running node restores to a node with every acknowledged event', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(join(directory, 'source'));
  const load = new AppendLoad(engine, ['archived-a', 'archived-b']);
  t.teardown(async () => {
    await load.stop();
    await engine.close();
  });
  await load.reached(200);
  const before = load.snapshot();
  const archive = join(directory, 'backups', 'node.tar.gz');
  const backup = await runJson<{ archive: boolean; archiveBytes: number }>(['backup', '--archive', archive, ...dataArgs(join(directory, 'source'))]);
  t.equal(backup.code, 0, `backup --archive exits 0 ${backup.exit.stderr}`);
  t.ok(backup.json.archive && backup.json.archiveBytes > 0, 'the result describes the archive');
  t.same(readdirSync(join(directory, 'backups')), ['node.tar.gz'], 'only the archive is left, no temp file');
  await load.stop();

  const restore = await runJson(['restore', archive, ...dataArgs(join(directory, 'restored'))]);
  t.equal(restore.code, 0, `restore from the archive exits 0 ${restore.exit.stderr}`);
  t.notOk(readdirSync(join(directory, 'restored', 'db')).some((name) => name.startsWith('.svcdb-restore-')), 'the extraction scratch space is gone');
  const restored = await openEngine(join(directory, 'restored'));
  t.teardown(() => restored.close());
  await checkRestoredNode(t, restored, engine, before);
});

t.test('an archive always holds a full backup: --differential with --archive is a usage error', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  await engine.close();
  const run = await runJson(['backup', '--archive', join(directory, 'node.tar.gz'), '--differential', ...dataArgs(directory)]);
  t.equal(run.code, 2, 'exit code 2: usage');
  t.equal(run.json.error?.code, 'SVCDB_ERR_OPTION_INVALID');
  t.notOk(existsSync(join(directory, 'node.tar.gz')), 'no archive written');
});
