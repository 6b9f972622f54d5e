// svcdb restore: only on a stopped node, into empty directories unless --force, never from an
// unfinished backup; and the restored node cuts its log back to the backup's chaser.chk.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { Checkpoint } from '../../src/storage/log/checkpoint.js';
import { CheckpointName, NODE_IDENTITY_FILE_NAME } from '../../src/storage/layout.js';
import { AppendLoad, checkRestoredNode, dataArgs, readAll, readStream, runJson, type BackupJson } from '../helpers/backup.js';
import { newEvents, openEngine, tempDirectory } from '../helpers/engine.js';

interface RestoreJson {
  truncateTo: number;
  filesRestored: number;
  removed: string[];
}

async function backupOf(t: Test, directory: string, events = 300): Promise<string> {
  const engine = await openEngine(directory);
  for (let i = 0; i < events; i += 20) await engine.append(`stream-${i % 3}`, -2, newEvents(20));
  await engine.close();
  const destination = join(directory, 'backup');
  const run = await runJson(['backup', destination, ...dataArgs(directory)]);
  t.equal(run.code, 0, `backup exits 0 ${run.exit.stderr}`);
  return destination;
}

t.test('restore is refused while a node holds the lock of the target', async (t) => {
  const directory = tempDirectory(t);
  const backup = await backupOf(t, join(directory, 'source'));
  const target = join(directory, 'running');
  const running = await openEngine(target);
  t.teardown(() => running.close());
  await running.append('running-stream', -1, newEvents(3));
  const writerBefore = readFileSync(join(target, 'db', CheckpointName.writer));

  const run = await runJson(['restore', backup, ...dataArgs(target), '--force']);
  t.equal(run.code, 3, 'exit code 3: locked');
  t.equal(run.json.error?.code, 'SVCDB_ERR_STORAGE_LOCKED');
  t.same(readFileSync(join(target, 'db', CheckpointName.writer)), writerBefore, 'the running node\'s files are untouched');
  t.equal(readStream(running, 'running-stream').length, 3, 'the running node still reads its events');
});

t.test('restore of a backup taken while the last chunk was being written cuts the log back to chaser.chk', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(join(directory, 'source'));
  const load = new AppendLoad(engine, ['busy-a', 'busy-b'], 2);
  t.teardown(async () => {
    await load.stop();
    await engine.close();
  });
  await load.reached(200);
  const before = load.snapshot();
  const destination = join(directory, 'backup');
  const backup = await runJson<BackupJson>(['backup', destination, ...dataArgs(join(directory, 'source'))]);
  t.equal(backup.code, 0, `backup exits 0 ${backup.exit.stderr}`);
  await load.stop();
  const chaser = backup.json.checkpoints[CheckpointName.chaser];
  t.comment(`the backup holds ${backup.json.checkpoints[CheckpointName.writer] - chaser} bytes of log past chaser.chk`);

  const restore = await runJson<RestoreJson>(['restore', destination, ...dataArgs(join(directory, 'restored'))]);
  t.equal(restore.code, 0, `restore exits 0 ${restore.exit.stderr}`);
  t.equal(restore.json.truncateTo, chaser, 'truncate.chk is the backup\'s chaser.chk');
  const restored = await openEngine(join(directory, 'restored'));
  t.teardown(() => restored.close());
  const positions = readAll(restored).map((event) => event.logPosition);
  t.ok(positions.every((position) => position < chaser), 'no event at or past chaser.chk survives the start');
  await checkRestoredNode(t, restored, engine, before);
});

t.test('restore cuts the log back to chaser.chk when the backup holds writes past it', async (t) => {
  const directory = tempDirectory(t);
  const source = join(directory, 'source');
  const engine = await openEngine(source);
  await engine.append('kept', -1, newEvents(10));
  const cut = (await engine.append('cut', -1, newEvents(5))).logPosition;
  await engine.append('kept', 9, newEvents(10, 'AfterTheCut'));
  await engine.close();
  // A node that stopped before its chaser caught up (killed, say): chaser.chk lags writer.chk.
  const chaser = Checkpoint.open(join(source, 'db'), CheckpointName.chaser, 0, true);
  chaser.write(cut);
  await chaser.close();

  const destination = join(directory, 'backup');
  const backup = await runJson<BackupJson>(['backup', destination, ...dataArgs(source)]);
  t.equal(backup.code, 0, `backup exits 0 ${backup.exit.stderr}`);
  t.ok(backup.json.checkpoints[CheckpointName.writer] > cut, 'the backup holds writes past chaser.chk');
  t.match(backup.json.warnings.join('\n'), /chaser\.chk \(\d+\) stayed below \d+ \(the node is not running\)/, 'the backup says how far a restore reaches');

  const restore = await runJson<RestoreJson>(['restore', destination, ...dataArgs(join(directory, 'restored'))]);
  t.equal(restore.code, 0, `restore exits 0 ${restore.exit.stderr}`);
  t.equal(restore.json.truncateTo, cut);
  const restored = await openEngine(join(directory, 'restored'));
  t.teardown(() => restored.close());
  t.equal(readStream(restored, 'kept').length, 10, 'the events below chaser.chk are there');
  t.equal(readStream(restored, 'cut').length, 0, 'the events at and past chaser.chk are gone');
  t.equal((await restored.append('kept', 9, newEvents(1))).firstEventNumber, 10, 'appends continue after the cut');
  t.equal((await restored.append('cut', -1, newEvents(1))).firstEventNumber, 0, 'the cut stream starts anew');
});

t.test('restore refuses an unfinished backup', async (t) => {
  const directory = tempDirectory(t);
  const backup = await backupOf(t, join(directory, 'source'));
  const manifestPath = join(backup, 'svcdb-backup.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  writeFileSync(manifestPath, JSON.stringify({ ...manifest, status: 'in-progress' }));
  const run = await runJson(['restore', backup, ...dataArgs(join(directory, 'target'))]);
  t.equal(run.code, 8, 'exit code 8: refused');
  t.equal(run.json.error?.code, 'SVCDB_ERR_BACKUP_INCOMPLETE');
  t.notOk(existsSync(join(directory, 'target', 'db', CheckpointName.writer)), 'nothing was restored');
});

t.test('restore into a non-empty target needs --force, which replaces the database there', async (t) => {
  const directory = tempDirectory(t);
  const backup = await backupOf(t, join(directory, 'source'));
  const target = join(directory, 'target');
  const other = await openEngine(target);
  await other.append('other-node-stream', -1, newEvents(7));
  await other.close();
  writeFileSync(join(target, 'db', NODE_IDENTITY_FILE_NAME), JSON.stringify({ nodeId: '00000000-0000-4000-8000-000000000000' }));

  const refused = await runJson(['restore', backup, ...dataArgs(target)]);
  t.equal(refused.code, 8, 'exit code 8: refused');
  t.equal(refused.json.error?.code, 'SVCDB_ERR_RESTORE_TARGET_NOT_EMPTY');

  const forced = await runJson<RestoreJson>(['restore', backup, ...dataArgs(target), '--force']);
  t.equal(forced.code, 0, `restore --force exits 0 ${forced.exit.stderr}`);
  t.ok(forced.json.removed.includes(`db/${NODE_IDENTITY_FILE_NAME}`), 'the target\'s node identity is deleted');
  const restored = await openEngine(target);
  t.equal(readStream(restored, 'other-node-stream').length, 0, 'nothing of the replaced database is left');
  t.equal(readStream(restored, 'stream-0').length + readStream(restored, 'stream-1').length + readStream(restored, 'stream-2').length, 300,
    'the backup\'s events are there');
});

// Regression: a mistyped SOURCE was reported as "is not a svcdb backup: it has no svcdb-backup.json".
t.test('restore of a path that does not exist says that it does not exist', async (t) => {
  const directory = tempDirectory(t);
  const missing = join(directory, 'no-such-backup');
  const refused = await runJson(['restore', missing, ...dataArgs(join(directory, 'target'))]);
  t.equal(refused.code, 2, 'exit code 2: wrong arguments');
  t.equal(refused.json.error?.code, 'SVCDB_ERR_OPTION_INVALID');
  t.match(refused.json.error?.message, /does not exist/, 'the message says the path does not exist');
  t.notMatch(refused.json.error?.message, /not a svcdb backup/);
});
