/**
 * The reference's simple full file-copy backup, in its order:
 *   (1) index checkpoint files (*.chk under the index directory),
 *   (2) the other index files,
 *   (3) database checkpoint files,
 *   (4) chunk files.
 * Copied in that order from a live node, each part is at or behind the next: the index covers no
 * more of the log than the checkpoints say was processed, and the chunks hold at least what the
 * checkpoints say was written. A restore cuts the log back to chaser.chk and everything agrees.
 *
 * Within (2), indexmap and the files it lists are copied until the map reads the same before and
 * after its files (index-source.ts), so a merge during the copy cannot leave the map listing a
 * file the backup lacks.
 */
import { join } from 'node:path';
import { Errors } from '../../common/errors.js';
import { CheckpointName, INDEXMAP_FILE, IndexPath } from '../../storage/layout.js';
import { copyChunk } from './chunk-copy.js';
import { COPY_CONCURRENCY, forEachConcurrently } from './concurrency.js';
import {
  INDEX_ROUNDS_MAX, indexKeptChanging, listIndexDataFiles, parseIndexMapBytes, readIndexMapBytes, readSourceIndexMap,
} from './index-source.js';
import { BACKUP_DB_DIRECTORY, BACKUP_INDEX_DIRECTORY, FULL_DB_CHECKPOINTS, INDEX_CHECKPOINTS } from './layout.js';
import type { Tally } from './progress.js';
import { listChunkFiles, readCheckpoint, readCheckpointAt, type DataDirectories } from './source.js';
import type { BackupTarget } from './target.js';

export interface CopyContext {
  source: DataDirectories;
  tally: Tally;
  /**
   * Runs before the database checkpoints are read, with the index commit position the backup
   * holds: it waits for chaser.chk to cover the writes acknowledged before the backup began
   * (backup.ts).
   */
  beforeDatabaseCheckpoints(indexCommitPosition: number): Promise<void>;
}

export interface CopyOutcome {
  /** The index's files as last listed in the source (what the backup must keep). */
  indexFiles: string[];
  /** The chunk files of the source, in log order. */
  chunkFiles: string[];
  /** The database checkpoints as copied. */
  checkpoints: Partial<Record<string, number>>;
  indexCommitPosition: number;
}

export const indexPath = (name: string) => `${BACKUP_INDEX_DIRECTORY}/${name}`;
export const dbPath = (name: string) => `${BACKUP_DB_DIRECTORY}/${name}`;

/**
 * Copies the 8 bytes of a checkpoint as read at one moment; returns its value, undefined if
 * absent. A folder target writes it when the backup commits (target.ts).
 */
export async function copyCheckpoint(directory: string, name: string, file: string, target: BackupTarget, tally: Tally): Promise<number | undefined> {
  const checkpoint = await readCheckpointAt(directory, name);
  if (checkpoint === undefined) return undefined;
  await target.writeCheckpoint(file, checkpoint.bytes);
  tally.copied(file, checkpoint.bytes.length);
  return checkpoint.value;
}

/** Copies a file rewritten in place (the existence filter, the scavenge state) if it exists. */
async function copyIfPresent(source: string, file: string, target: BackupTarget, tally: Tally): Promise<void> {
  tally.working(file);
  const copy = await target.copyIfChanged(source, file, true);
  if (copy !== undefined) tally.copied(file, copy.bytes);
}

/**
 * Step (2)'s index set: the map, then every file it may list, until the map did not change while
 * they were copied. The map is written last, so the target never holds a map ahead of its files.
 */
async function copyIndexSet(index: string, target: BackupTarget, tally: Tally): Promise<{ files: string[]; commitPosition: number }> {
  const copied = new Set<string>();
  for (let round = 0; round < INDEX_ROUNDS_MAX; round++) {
    const map = await readSourceIndexMap(index);
    if (map === undefined) return { files: [], commitPosition: 0 };
    const files = await listIndexDataFiles(index);
    await forEachConcurrently(files.filter((name) => !copied.has(name)), COPY_CONCURRENCY, async (name) => {
      tally.working(indexPath(name));
      const bytes = await target.copyFile(join(index, name), indexPath(name));
      // A file merged away since the listing: the map has changed too, and the next round sees it.
      if (bytes === undefined) return;
      copied.add(name);
      tally.copied(indexPath(name), bytes);
    });
    const mapAfter = await readIndexMapBytes(index);
    if (mapAfter === undefined || !mapAfter.equals(map)) continue;
    const parsed = parseIndexMapBytes(map, join(index, INDEXMAP_FILE));
    if (parsed.files.some((file) => !copied.has(file.id))) continue;
    await target.writeBytes(indexPath(INDEXMAP_FILE), map);
    tally.copied(indexPath(INDEXMAP_FILE), map.length);
    return { files, commitPosition: parsed.commitPosition };
  }
  throw indexKeptChanging();
}

/** The four steps, into any target. */
export async function fullCopy(context: CopyContext, target: BackupTarget): Promise<CopyOutcome> {
  const { source, tally } = context;

  tally.phase('index checkpoints');
  for (const name of INDEX_CHECKPOINTS) await copyCheckpoint(source.index, name, indexPath(name), target, tally);

  tally.phase('index files');
  const indexSet = await copyIndexSet(source.index, target, tally);
  await copyIfPresent(join(source.index, IndexPath.existenceData), indexPath(IndexPath.existenceData), target, tally);
  await copyIfPresent(join(source.index, IndexPath.scavengeState), indexPath(IndexPath.scavengeState), target, tally);

  await context.beforeDatabaseCheckpoints(indexSet.commitPosition);
  tally.phase('database checkpoints');
  const checkpoints: Partial<Record<string, number>> = {};
  for (const name of FULL_DB_CHECKPOINTS) {
    checkpoints[name] = await copyCheckpoint(source.db, name, dbPath(name), target, tally);
  }

  tally.phase('chunks');
  const chunkFiles = await listChunkFiles(source.db);
  await copyChunkFiles(source.db, chunkFiles, target, tally);

  return { indexFiles: indexSet.files, chunkFiles, checkpoints, indexCommitPosition: indexSet.commitPosition };
}

/**
 * Copies chunks of the listing, in log order: a few at a time, but each put in place only after
 * the one before it (target.ts), so a backup killed part way never holds a chunk after a gap.
 */
export async function copyChunkFiles(db: string, names: readonly string[], target: BackupTarget, tally: Tally): Promise<void> {
  // Each chunk's copy settles with the one before it: a failure fails every later one too.
  let previous: Promise<void> | undefined;
  const copies = names.map((name) => {
    let start!: () => void;
    const started = new Promise<void>((resolve) => {
      start = resolve;
    });
    const after = previous;
    const copy = started.then(() => copyChunkFile(db, name, target, tally, after));
    copy.catch(() => undefined);
    previous = copy;
    return { start, copy };
  });
  await forEachConcurrently(copies, COPY_CONCURRENCY, async ({ start, copy }) => {
    start();
    await copy;
  });
}

/** Copies one chunk of the listing; with no scavenge running, none may vanish. */
async function copyChunkFile(db: string, name: string, target: BackupTarget, tally: Tally, after?: Promise<unknown>): Promise<void> {
  tally.working(dbPath(name));
  const writerPosition = await readCheckpoint(db, CheckpointName.writer) ?? 0;
  const bytes = await copyChunk(join(db, name), dbPath(name), target, writerPosition, after);
  if (bytes === undefined) throw Errors.backupSourceChanged.create(`chunk file ${name} vanished while the backup ran`);
  tally.copied(dbPath(name), bytes);
}
