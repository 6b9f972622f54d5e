/**
 * How many bytes a backup will go through, taken before it starts, as `pg_basebackup -P` sums the
 * sizes of the files it will send: the figure its progress counts towards. It is an estimate: the
 * node keeps writing while the backup runs, and index files are merged under it.
 *
 * Each file is counted as the copy counts it (full-backup.ts): a completed chunk and an index file
 * by their size, the ongoing chunk by its header and the records under writer.chk (the rest of it
 * is preallocated zeroes that are never read), a checkpoint by its 8 bytes.
 */
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointName, INDEXMAP_FILE, IndexPath, isIndexDataFile } from '../../storage/layout.js';
import { CHUNK_HEADER_BYTES } from '../../storage/log/chunk-format.js';
import { readChunkState } from './chunk-copy.js';
import { FULL_DB_CHECKPOINTS, INDEX_CHECKPOINTS } from './layout.js';
import { listChunkFiles, readCheckpoint, type DataDirectories } from './source.js';

/** The size of a regular file, 0 when there is none: what a skipped file adds to the work done. */
export async function fileBytes(path: string): Promise<number> {
  const found = await lstat(path).catch(() => undefined);
  return found?.isFile() ? found.size : 0;
}

async function sumSizes(directory: string, names: readonly string[]): Promise<number> {
  const sizes = await Promise.all(names.map((name) => fileBytes(join(directory, name))));
  return sizes.reduce((sum, size) => sum + size, 0);
}

async function indexBytes(index: string): Promise<number> {
  const names = (await readdir(index).catch(() => [] as string[])).filter(isIndexDataFile);
  return sumSizes(index, [...INDEX_CHECKPOINTS, INDEXMAP_FILE, IndexPath.existenceData, IndexPath.scavengeState, ...names]);
}

async function chunkBytes(db: string, name: string, writerPosition: number): Promise<number> {
  const state = await readChunkState(join(db, name)).catch(() => undefined);
  if (state === undefined) return 0;
  if (state.completed) return state.sizeBytes;
  const { chunkSize, startNumber } = state.header;
  return CHUNK_HEADER_BYTES + Math.min(chunkSize, Math.max(0, writerPosition - startNumber * chunkSize));
}

/** The bytes a full backup of `source` would copy if the node wrote nothing more. */
export async function backupBytesEstimate(source: DataDirectories): Promise<number> {
  const writerPosition = (await readCheckpoint(source.db, CheckpointName.writer)) ?? 0;
  const chunks = await listChunkFiles(source.db);
  const sizes = await Promise.all(chunks.map((name) => chunkBytes(source.db, name, writerPosition)));
  const checkpoints = await sumSizes(source.db, FULL_DB_CHECKPOINTS);
  return (await indexBytes(source.index)) + checkpoints + sizes.reduce((sum, size) => sum + size, 0);
}
