/**
 * The reference's differential backup, log part, step by step:
 *   (1) rename the last chunk in the backup with a .old suffix;
 *   (2) copy chaser.chk, epoch.chk, writer.chk, proposal.chk;
 *   (3) list all source chunk files as chunkFiles;
 *   (4) copy them, skipping names already in the backup (all must copy, none can have vanished
 *       since no scavenge runs);
 *   (5) delete from the backup every chunk not in chunkFiles, including the .old file.
 *
 * The last chunk was probably still being written when the previous backup copied it; (1) sets it
 * aside so that (4) copies it again with everything written since. Here (4) decides by content
 * instead of by name: a chunk the backup has is skipped only when it is the same completed chunk,
 * same chunk id and hash (chunk-copy.ts). So the backup's last chunk, ongoing when it was copied,
 * is copied again without being renamed first, and so is a same-named file that differs for any
 * other reason (a chunk the source rewrote since, a truncation). Renaming it away would leave the
 * backup without its last chunk, unrestorable, until the run finished.
 *
 * The source is read in the reference's order; the backup folder is written so that a run killed
 * at any point leaves a backup that restores (target.ts): (2)'s checkpoints are held and written
 * after the chunks, chaser.chk last, and the chunks go in in log order, each over its previous
 * copy by an atomic rename. The deletions of (5) are returned to the caller, which makes them once
 * the new backup is committed.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { copyCheckpoint, copyChunkFiles, dbPath } from './full-backup.js';
import { isSameCompletedChunk, readChunkState } from './chunk-copy.js';
import { fileBytes } from './estimate.js';
import { isChunkFile } from '../../storage/layout.js';
import { BACKUP_DB_DIRECTORY, DIFFERENTIAL_DB_CHECKPOINTS, isOldChunkFile } from './layout.js';
import type { Tally } from './progress.js';
import { listChunkFiles, type DataDirectories } from './source.js';
import type { FolderTarget } from './target.js';

export interface LogPartOutcome {
  chunkFiles: string[];
  checkpoints: Partial<Record<string, number>>;
  /** Step (5): the backup's chunk files the node no longer has, and .old files, to delete once the backup is committed. */
  stale: string[];
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
  source: DataDirectories, target: FolderTarget, tally: Tally, beforeDatabaseCheckpoints: () => Promise<void>,
): Promise<LogPartOutcome> {
  const backupDb = target.path(BACKUP_DB_DIRECTORY);
  // (1) is (4)'s comparison by content, above.

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
    if (await isAlreadyInBackup(join(source.db, name), join(backupDb, name))) tally.skipped(dbPath(name), await fileBytes(join(source.db, name)));
    else missing.push(name);
  }
  await copyChunkFiles(source.db, missing, target, tally);

  // (5)
  const keep = new Set(chunkFiles);
  const stale = (await listBackupDb(backupDb)).filter((name) => (isChunkFile(name) || isOldChunkFile(name)) && !keep.has(name));
  return { chunkFiles, checkpoints, stale: stale.map(dbPath) };
}

async function isAlreadyInBackup(sourcePath: string, backupPath: string): Promise<boolean> {
  const copy = await readChunkState(backupPath).catch(() => undefined);
  if (copy === undefined) return false;
  const original = await readChunkState(sourcePath);
  return original !== undefined && isSameCompletedChunk(original, copy);
}
