// svcdb backup verify: passes an intact backup, folder or archive, and finds damage in a chunk,
// in the ongoing last chunk and in an index file, naming each file.
import { cpSync, existsSync, openSync, readFileSync, readdirSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { CHUNK_HEADER_BYTES } from '../../src/storage/log/chunk-format.js';
import { isIndexDataFile, sortChunkFiles } from '../../src/storage/layout.js';
import { parseIndexMap } from '../../src/storage/index/indexmap.js';
import { dataArgs, runJson } from '../helpers/backup.js';
import { newEvents, openEngine, tempDirectory } from '../helpers/engine.js';

interface VerifyJson {
  chunks: number;
  indexFiles: number;
  nodeId: string;
}

type ProblemList = Array<{ file: string; problem: string }>;

function flipByte(path: string, offset: number): void {
  const fd = openSync(path, 'r+');
  try {
    const byte = Buffer.alloc(1);
    byte[0] = readFileSync(path)[offset] ^ 0x5a;
    writeSync(fd, byte, 0, 1, offset);
  } finally {
    closeSync(fd);
  }
}

t.test('backup verify', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  for (let round = 0; engine.status().chunkCount < 4; round++) await engine.append(`stream-${round % 4}`, -2, newEvents(20));
  await engine.settleIndex();
  await engine.close();
  const backup = join(directory, 'backup');
  const archive = join(directory, 'backup.tar.gz');
  const folderRun = await runJson<{ synced: boolean }>(['backup', backup, ...dataArgs(directory)]);
  t.equal(folderRun.code, 0, 'folder backup');
  t.equal(folderRun.json.synced, true, 'synced by default');
  t.equal((await runJson(['backup', '--archive', archive, ...dataArgs(directory)])).code, 0, 'archive backup');
  const chunks = sortChunkFiles(readdirSync(join(backup, 'db')));

  await t.test('a --no-sync backup holds the same files and verifies', async (t) => {
    const unsynced = join(directory, 'unsynced');
    const folder = await runJson<{ synced: boolean }>(['backup', unsynced, '--no-sync', ...dataArgs(directory)]);
    t.equal(folder.code, 0, folder.exit.stderr);
    t.equal(folder.json.synced, false, 'the result says it was not synced');
    const files = (root: string) => ['db', 'index'].flatMap((part) => readdirSync(join(root, part), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1)).sort());
    t.same(files(unsynced), files(backup), 'the same files as a synced backup');
    for (const file of files(backup)) t.same(readFileSync(join(unsynced, file)), readFileSync(join(backup, file)), `${file} is the same`);
    t.equal((await runJson(['backup', 'verify', unsynced])).code, 0, 'and it verifies');
    const unsyncedArchive = join(directory, 'unsynced.tar.gz');
    const archived = await runJson<{ synced: boolean }>(['backup', '--archive', unsyncedArchive, '--no-sync', ...dataArgs(directory)]);
    t.equal(archived.json.synced, false);
    t.equal((await runJson(['backup', 'verify', unsyncedArchive])).code, 0, 'an unsynced archive verifies too');
  });

  await t.test('an intact backup passes, folder and archive', async (t) => {
    for (const source of [backup, archive]) {
      const run = await runJson<VerifyJson>(['backup', 'verify', source]);
      t.equal(run.code, 0, `${source} verifies ${run.exit.stderr}`);
      t.equal(run.json.chunks, chunks.length, 'every chunk checked');
    }
  });

  // Regression: cleaning up the scratch folder raced the still-running extraction, so a truncated
  // archive failed with a raw ENOTEMPTY (exit 1) and left the scratch folder and a stale lock.
  await t.test('a truncated archive is corrupt for verify and restore, and nothing is left behind', async (t) => {
    const truncatedDirectory = join(directory, 'truncated');
    const bytes = readFileSync(archive);
    await t.test('verify', async (t) => {
      const truncated = join(directory, 'truncated-verify.tar.gz');
      writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
      const run = await runJson(['backup', 'verify', truncated]);
      t.equal(run.code, 4, `exit code 4: corrupt ${run.exit.stderr}`);
      t.equal(run.json.error?.code, 'SVCDB_ERR_BACKUP_CORRUPT');
      t.match(run.json.error?.message, /damaged or truncated/);
      t.notOk(readdirSync(directory).some((name) => name.startsWith('.svcdb-verify-')), 'no scratch folder is left');
    });
    await t.test('restore', async (t) => {
      const truncated = join(directory, 'truncated-restore.tar.gz');
      writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
      for (const attempt of ['first', 'second']) {
        const run = await runJson(['restore', truncated, ...dataArgs(truncatedDirectory)]);
        t.equal(run.code, 4, `${attempt} restore: exit code 4: corrupt ${run.exit.stderr}`);
        t.equal(run.json.error?.code, 'SVCDB_ERR_BACKUP_CORRUPT');
        const left = readdirSync(join(truncatedDirectory, 'db'));
        t.notOk(left.some((name) => name.startsWith('.svcdb-restore-')), 'no scratch folder is left');
        t.notOk(existsSync(join(truncatedDirectory, 'db', 'svcdb.lock')), 'the lock is released');
      }
    });
  });

  const damaged = async (t: Test, name: string, damage: (copy: string) => string): Promise<ProblemList> => {
    const copy = join(directory, name);
    cpSync(backup, copy, { recursive: true });
    const file = damage(copy);
    const run = await runJson(['backup', 'verify', copy]);
    t.equal(run.code, 4, 'exit code 4: corrupt');
    t.equal(run.json.error?.code, 'SVCDB_ERR_BACKUP_CORRUPT');
    const problems = run.json.error?.details.problems as ProblemList;
    t.same(problems.map((problem) => problem.file), [file], `the problem is in ${file}, and only there`);
    return problems;
  };

  await t.test('a corrupted byte in a completed chunk is found', async (t) => {
    const [problem] = await damaged(t, 'bad-chunk', (copy) => {
      flipByte(join(copy, 'db', chunks[1]), CHUNK_HEADER_BYTES + 1000);
      return `db/${chunks[1]}`;
    });
    t.match(problem.problem, /hash mismatch/);
  });

  await t.test('a corrupted record in the ongoing last chunk is found', async (t) => {
    const [problem] = await damaged(t, 'bad-last-chunk', (copy) => {
      flipByte(join(copy, 'db', chunks.at(-1)!), CHUNK_HEADER_BYTES + 20);
      return `db/${chunks.at(-1)}`;
    });
    t.match(problem.problem, /checksum|corrupt/);
  });

  await t.test('a corrupted index file is found', async (t) => {
    await damaged(t, 'bad-index', (copy) => {
      const map = parseIndexMap(readFileSync(join(copy, 'index', 'indexmap'), 'latin1'), 'indexmap');
      const file = map.files[0].id;
      t.ok(readdirSync(join(copy, 'index')).filter(isIndexDataFile).includes(file), 'the map lists a file the backup has');
      flipByte(join(copy, 'index', file), 200);
      return `index/${file}`;
    });
  });
});
