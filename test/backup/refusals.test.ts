// What svcdb backup refuses, with its code and exit code: another node's destination, a running
// scavenge (also one that starts during the copy), a directory that is not a node's, a destination
// with other files in it.
import Database from 'better-sqlite3';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { backup } from '../../src/maint/backup/backup.js';
import { IndexPath } from '../../src/storage/layout.js';
import { dataArgs, runJson } from '../helpers/backup.js';
import { newEvents, openEngine, tempDirectory } from '../helpers/engine.js';

async function nodeWithEvents(directory: string, stream = 'events'): Promise<void> {
  const engine = await openEngine(directory);
  await engine.append(stream, -1, newEvents(30));
  await engine.close();
}

const manifestNodeId = (destination: string) => (JSON.parse(readFileSync(join(destination, 'svcdb-backup.json'), 'utf8')) as { nodeId: string }).nodeId;

/** The state file scavenge keeps (scavenge-state.ts), at a given stage. */
function writeScavengeState(index: string, stage: string): void {
  mkdirSync(join(index, 'scavenging'), { recursive: true });
  const database = new Database(join(index, IndexPath.scavengeState));
  try {
    database.pragma('journal_mode = WAL');
    database.exec('CREATE TABLE IF NOT EXISTS Checkpoint (key INTEGER PRIMARY KEY, value TEXT)');
    const value = JSON.stringify({ scavengePoint: { position: 1024, number: 0 }, schemaVersion: 1, checkpointStage: stage, doneLogicalChunkNumber: 0 });
    database.prepare('INSERT OR REPLACE INTO Checkpoint (key, value) VALUES (0, ?)').run(value);
  } finally {
    database.close();
  }
}

t.test('a backup of another node into a destination is refused, the destination untouched', async (t) => {
  const directory = tempDirectory(t);
  await nodeWithEvents(join(directory, 'node-a'));
  await nodeWithEvents(join(directory, 'node-b'));
  const destination = join(directory, 'backup');
  const first = await runJson(['backup', destination, ...dataArgs(join(directory, 'node-a'))]);
  t.equal(first.code, 0, `backup of node A exits 0 ${first.exit.stderr}`);
  const nodeA = manifestNodeId(destination);

  for (const mode of [[], ['--differential']]) {
    const refused = await runJson(['backup', destination, ...mode, ...dataArgs(join(directory, 'node-b'))]);
    t.equal(refused.code, 8, `${mode.join(' ') || 'full'}: exit code 8`);
    t.equal(refused.json.error?.code, 'SVCDB_ERR_BACKUP_OTHER_NODE');
    t.equal(refused.json.error?.details.backupNodeId, nodeA);
  }
  t.equal(manifestNodeId(destination), nodeA, 'the destination still holds node A\'s backup');

  const archive = join(directory, 'node-a.tar.gz');
  t.equal((await runJson(['backup', '--archive', archive, ...dataArgs(join(directory, 'node-a'))])).code, 0, 'archive of node A');
  const refusedArchive = await runJson(['backup', '--archive', archive, ...dataArgs(join(directory, 'node-b'))]);
  t.equal(refusedArchive.json.error?.code, 'SVCDB_ERR_BACKUP_OTHER_NODE', 'an archive of node A is not overwritten by node B');
});

t.test('a node restored from a backup is a new node: its backup into the old destination is refused', async (t) => {
  const directory = tempDirectory(t);
  await nodeWithEvents(join(directory, 'node'));
  const destination = join(directory, 'backup');
  t.equal((await runJson(['backup', destination, ...dataArgs(join(directory, 'node'))])).code, 0, 'backup');
  t.equal((await runJson(['restore', destination, ...dataArgs(join(directory, 'restored'))])).code, 0, 'restore');
  await nodeWithEvents(join(directory, 'restored'), 'after-restore');
  const refused = await runJson(['backup', destination, '--differential', ...dataArgs(join(directory, 'restored'))]);
  t.equal(refused.json.error?.code, 'SVCDB_ERR_BACKUP_OTHER_NODE', 'refused: take a full backup of a restored node (the reference\'s rule 5)');
});

t.test('a backup is refused while a scavenge runs on the node, and taken once it is done', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  await engine.append('events', -1, newEvents(30));
  const index = join(directory, 'index');
  writeScavengeState(index, 'Accumulating');

  const refused = await runJson(['backup', join(directory, 'backup'), ...dataArgs(directory)]);
  t.equal(refused.code, 7, 'exit code 7: busy');
  t.equal(refused.json.error?.code, 'SVCDB_ERR_BACKUP_SCAVENGE_RUNNING');
  t.equal(refused.json.error?.details.stage, 'Accumulating');
  // Regression: the hint said "or stop it", but a stopped scavenge blocks the backup just the same.
  const hint = (refused.json.error as { hint?: string } | undefined)?.hint;
  t.match(hint, /svcdb scavenge start --wait/, 'the hint says how to finish a stopped scavenge');
  t.notMatch(hint, /stop it/, 'the hint does not offer stopping, which does not help');
  t.match(refused.json.error?.message, /rests stopped/, 'the message covers a stopped scavenge');

  writeScavengeState(index, 'Done');
  const taken = await runJson<{ copied: Array<{ file: string }> }>(['backup', join(directory, 'backup'), ...dataArgs(directory)]);
  t.equal(taken.code, 0, `a finished scavenge does not stop the backup ${taken.exit.stderr}`);
  t.ok(taken.json.copied.some((copy) => copy.file === `index/${IndexPath.scavengeState}`), 'the scavenge state is backed up');

  await engine.close();
  writeScavengeState(index, 'ExecutingChunks');
  const stopped = await runJson(['backup', join(directory, 'backup-of-stopped-node'), ...dataArgs(directory)]);
  t.equal(stopped.code, 0, 'a stopped node cannot be scavenging: its unfinished scavenge state does not stop the backup');
});

t.test('a source that is not a node\'s data directory is refused', async (t) => {
  const directory = tempDirectory(t);
  mkdirSync(join(directory, 'empty', 'db'), { recursive: true });
  mkdirSync(join(directory, 'empty', 'index'), { recursive: true });
  for (const source of [join(directory, 'empty'), join(directory, 'missing')]) {
    const refused = await runJson(['backup', join(directory, 'backup'), ...dataArgs(source)]);
    t.equal(refused.code, 8, 'exit code 8: refused');
    t.equal(refused.json.error?.code, 'SVCDB_ERR_BACKUP_NOT_DATA_DIRECTORY');
  }
});

t.test('a destination holding other files is refused', async (t) => {
  const directory = tempDirectory(t);
  await nodeWithEvents(directory);
  mkdirSync(join(directory, 'photos'));
  writeFileSync(join(directory, 'photos', 'cat.jpg'), 'not a backup');
  const refused = await runJson(['backup', join(directory, 'photos'), ...dataArgs(directory)]);
  t.equal(refused.code, 8, 'exit code 8: refused');
  t.equal(refused.json.error?.code, 'SVCDB_ERR_BACKUP_NOT_A_BACKUP');
  t.equal(readFileSync(join(directory, 'photos', 'cat.jpg'), 'utf8'), 'not a backup', 'its files are untouched');
});

// Regression: a destination that is a regular file failed with a raw EEXIST and exit 1.
t.test('a destination that is a file is refused, the file untouched', async (t) => {
  const directory = tempDirectory(t);
  await nodeWithEvents(directory);
  const file = join(directory, 'notes.txt');
  writeFileSync(file, 'not a backup');
  const refused = await runJson(['backup', file, ...dataArgs(directory)]);
  t.equal(refused.code, 8, `exit code 8: refused ${refused.exit.stdout}`);
  t.equal(refused.json.error?.code, 'SVCDB_ERR_BACKUP_NOT_A_BACKUP');
  t.match(refused.json.error?.message, /empty or new folder/);
  t.equal(readFileSync(file, 'utf8'), 'not a backup', 'the file is untouched');
});

t.test('a scavenge that starts while files are copied spoils the backup, which stays unfinished', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  await engine.append('events', -1, newEvents(30));
  const destination = join(directory, 'backup');
  let started = false;
  await t.rejects(
    backup({
      db: join(directory, 'db'), index: join(directory, 'index'), destination, differential: false,
      onProgress: (progress) => {
        // The scavenge begins once the backup has reached the chunks.
        if (progress.phase !== 'chunks' || started) return;
        started = true;
        writeScavengeState(join(directory, 'index'), 'Accumulating');
      },
    }),
    { code: 'SVCDB_ERR_BACKUP_SOURCE_CHANGED' },
  );
  t.ok(started, 'the scavenge started during the copy');
  t.equal(JSON.parse(readFileSync(join(destination, 'svcdb-backup.json'), 'utf8')).status, 'in-progress', 'the backup is marked unfinished');
  const restore = await runJson(['restore', destination, ...dataArgs(join(directory, 'restored'))]);
  t.equal(restore.json.error?.code, 'SVCDB_ERR_BACKUP_INCOMPLETE', 'and restore refuses it');
});
