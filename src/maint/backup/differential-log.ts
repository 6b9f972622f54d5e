/**
 * The reference's differential backup, log part, step by step:
 *   (1) rename the last chunk in the backup with a .old suffix;
 *   (2) copy chaser.chk, epoch.chk, writer.chk, proposal.chk;
 *   (3) list all source chunk files as chunkFiles;
 *   (4) copy them, skipping names already in the backup (all must copy, none can have vanished
 *       since no scavenge runs);
 *   (5) delete from the backup every chunk not in chunkFiles, including the .old file.
 *
 * The last chunk was probably still being written when the previous backup copied it; renamed
 * away in (1), it is copied again in (4) with everything written since.
 *
 * "A name already in the backup" is taken to mean the same chunk file: the backup's file of that
 * name is a completed chunk with the source's chunk id and hash (chunk-copy.ts). The reference
 * compares names only; a same-named file that differs can only be a copy torn by an interrupted
 * run, or a chunk the source rewrote since (a truncation), and skipping it would keep a wrong file.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { copyChunkFile, copyCheckpoint, dbPath } from './full-backup.js';
import { isSameCompletedChunk, readChunkState } from './chunk-copy.js';
import { COPY_CONCURRENCY, forEachConcurrently } from './concurrency.js';
import { removeFile, renameFile, type Durability } from './file-copy.js';
import {
  BACKUP_DB_DIRECTORY, DIFFERENTIAL_DB_CHECKPOINTS, OLD_SUFFIX, isChunkFile, isOldChunkFile, sortChunkFiles,
} from './layout.js';
import type { Tally } from './progress.js';
import { listChunkFiles, type DataDirectories } from './source.js';
import type { FolderTarget } from './target.js';

export interface LogPartOutcome {
  chunkFiles: string[];
  checkpoints: Partial<Record<string, number>>;
  /** The backup's last chunk that step (1) renamed, if any. */
  renamedLast?: string;
}

async function listBackupDb(backupDb: string): Promise<string[]> {
  try {
    return await readdir(backupDb);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export async function differentialLogPart(
  source: DataDirectories, target: FolderTarget, durability: Durability, tally: Tally,
  beforeDatabaseCheckpoints: () => Promise<void>,
): Promise<LogPartOutcome> {
  const backupDb = target.path(BACKUP_DB_DIRECTORY);
  // (1)
  const backupChunks = sortChunkFiles(await listBackupDb(backupDb));
  const last = backupChunks.at(-1);
  if (last !== undefined) await renameFile(join(backupDb, last), join(backupDb, `${last}${OLD_SUFFIX}`), durability);

  // (2)
  await beforeDatabaseCheckpoints();
  tally.phase('database checkpoints');
  const checkpoints: Partial<Record<string, number>> = {};
  for (const name of DIFFERENTIAL_DB_CHECKPOINTS) {
    checkpoints[name] = await copyCheckpoint(source.db, name, dbPath(name), target, tally);
  }

  // (3)
  tally.phase('chunks');
  const chunkFiles = await listChunkFiles(source.db);
  // (4)
  const missing: string[] = [];
  for (const name of chunkFiles) {
    if (await isAlreadyInBackup(join(source.db, name), join(backupDb, name))) tally.skipped(dbPath(name));
    else missing.push(name);
  }
  await forEachConcurrently(missing, COPY_CONCURRENCY, (name) => copyChunkFile(source.db, name, target, tally));

  // (5)
  tally.phase('cleanup');
  const keep = new Set(chunkFiles);
  for (const name of await listBackupDb(backupDb)) {
    const isChunk = isChunkFile(name) || isOldChunkFile(name);
    if (!isChunk || keep.has(name)) continue;
    await removeFile(join(backupDb, name), durability);
    tally.removed(dbPath(name));
  }
  return { chunkFiles, checkpoints, renamedLast: last };
}

async function isAlreadyInBackup(sourcePath: string, backupPath: string): Promise<boolean> {
  const copy = await readChunkState(backupPath).catch(() => undefined);
  if (copy === undefined) return false;
  const original = await readChunkState(sourcePath);
  return original !== undefined && isSameCompletedChunk(original, copy);
}
