// Differential backups copy what changed and only that: after new chunks, after the last chunk
// was completed, after index merges (stale index files pruned), and nothing of an unchanged node.
// One node and one backup folder go through the steps in order, with `svcdb backup --json`.
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { isSameCompletedChunk, readChunkState } from '../../src/maint/backup/chunk-copy.js';
import { isIndexDataFile, sortChunkFiles } from '../../src/storage/layout.js';
import type { Engine } from '../../src/storage/engine.js';
import { dataArgs, runJson, type BackupJson } from '../helpers/backup.js';
import { newEvents, openEngine, tempDirectory } from '../helpers/engine.js';

const chunksIn = (db: string) => sortChunkFiles(readdirSync(db));
const indexFilesIn = (index: string) => readdirSync(index).filter(isIndexDataFile).sort();
const copiedChunks = (result: BackupJson) => result.copied.map((c) => c.file).filter((file) => file.startsWith('db/chunk-'));
const copiedIndexFiles = (result: BackupJson) => result.copied.map((c) => c.file.slice('index/'.length)).filter(isIndexDataFile);

async function appendUntil(engine: Engine, done: () => boolean): Promise<void> {
  for (let round = 0; !done(); round++) await engine.append(`stream-${round % 5}`, -2, newEvents(20));
}

t.test('differential backups copy what changed', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  const source = { db: join(directory, 'db'), index: join(directory, 'index') };
  const destination = join(directory, 'backup');
  const backupDb = join(destination, 'db');
  const backupIndex = join(destination, 'index');
  const differential = async () => {
    const run = await runJson<BackupJson>(['backup', destination, '--differential', ...dataArgs(directory)]);
    t.equal(run.code, 0, `differential backup exits 0 ${run.exit.stderr}`);
    return run.json;
  };

  await appendUntil(engine, () => engine.status().chunkCount >= 3);
  await engine.settleIndex();
  const full = await runJson<BackupJson>(['backup', destination, ...dataArgs(directory)]);
  t.equal(full.code, 0, `full backup exits 0 ${full.exit.stderr}`);

  await t.test('after new chunks: the new chunks and the last one are copied, the others kept', async (t) => {
    const before = chunksIn(backupDb);
    const lastBefore = before.at(-1)!;
    await appendUntil(engine, () => engine.status().chunkCount >= before.length + 3);
    const result = await differential();
    const now = chunksIn(source.db);
    t.same(chunksIn(backupDb), now, 'the backup holds the source\'s chunk files');
    const expected = [lastBefore, ...now.filter((name) => !before.includes(name))].map((name) => `db/${name}`);
    t.same(copiedChunks(result).sort(), expected, 'copied: the new chunks and the last chunk of the previous backup');
    for (const name of before.slice(0, -1)) t.ok(result.skipped.includes(`db/${name}`), `kept ${name}`);
    t.same(result.removed.filter((file) => file.startsWith('db/')), [], 'no chunk removed: the last one is copied again over its previous copy, not renamed aside');
    t.notOk(readdirSync(backupDb).some((name) => name.endsWith('.old') || name.endsWith('.tmp')), 'no .old or temp file is left');
  });

  await t.test('after the last chunk was completed: it is copied again, completed', async (t) => {
    const last = chunksIn(backupDb).at(-1)!;
    t.notOk((await readChunkState(join(backupDb, last)))!.completed, `${last} is ongoing in the backup`);
    const count = engine.status().chunkCount;
    await appendUntil(engine, () => engine.status().chunkCount > count);
    const result = await differential();
    t.ok(copiedChunks(result).includes(`db/${last}`), `${last} is copied`);
    const copy = (await readChunkState(join(backupDb, last)))!;
    const original = (await readChunkState(join(source.db, last)))!;
    t.ok(isSameCompletedChunk(original, copy), `${last} in the backup is the completed chunk, hash and all`);
  });

  await t.test('after index merges: the merged file is copied and the merged-away files pruned', async (t) => {
    const before = indexFilesIn(backupIndex);
    await engine.mergeIndexes();
    await engine.settleIndex();
    const after = indexFilesIn(source.index);
    t.ok(after.some((name) => !before.includes(name)), 'the merge made a new index file');
    const result = await differential();
    t.same(indexFilesIn(backupIndex), after, 'the backup holds exactly the source\'s index files');
    for (const name of before.filter((name) => !after.includes(name))) t.ok(result.removed.includes(`index/${name}`), `pruned ${name}`);
    t.same(copiedIndexFiles(result).sort(), after.filter((name) => !before.includes(name)), 'copied only the new index files');
    t.same(await readFile(join(backupIndex, 'indexmap')), await readFile(join(source.index, 'indexmap')), 'the indexmaps are the same');
  });

  await t.test('unchanged: no index file and no chunk but the reference\'s re-copied last one', async (t) => {
    await differential();
    const result = await differential();
    const last = chunksIn(source.db).at(-1)!;
    t.same(copiedChunks(result), [`db/${last}`], 'only the last chunk, copied again as the reference says');
    t.same(copiedIndexFiles(result), [], 'no index file');
    t.same(result.removed, [], 'nothing removed');
    const kept = [...chunksIn(source.db).slice(0, -1).map((name) => `db/${name}`), ...indexFilesIn(source.index).map((name) => `index/${name}`)];
    t.same(kept.filter((file) => !result.skipped.includes(file)), [], 'every other chunk and index file is kept as it was');
    const other = result.copied.map((c) => c.file).filter((file) => !file.startsWith('db/chunk-'));
    for (const file of other) {
      t.match(file, /^(db\/\w+\.chk|index\/indexmap|index\/stream-existence\/streamExistenceFilter\.(chk|dat))$/, `${file} is a small file the reference always copies`);
    }
  });
});
