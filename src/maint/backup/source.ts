/**
 * The node being backed up, seen through its data directories only: no lock is taken and nothing
 * the engine owns is written, so a live node keeps running while its files are read.
 */
import { existsSync, statSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Errors } from '../../common/errors.js';
import { CheckpointName, sortChunkFiles } from '../../storage/layout.js';
import { readInt64 } from '../../storage/log/int64.js';
import { lockOwnerPid } from '../../storage/disk/lock.js';

export interface DataDirectories {
  db: string;
  index: string;
}

const CHECKPOINT_BYTES = 8;
/** Reads of a checkpoint until two agree: it is overwritten in place while the node runs. */
const STABLE_READS_MAX = 10;

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Refuses anything that is not a node's pair of data directories, before touching anything. */
export async function checkDataDirectories(directories: DataDirectories): Promise<DataDirectories> {
  const db = resolve(directories.db);
  const index = resolve(directories.index);
  const refuse = (path: string, why: string) => Errors.backupNotDataDirectory.create(path, why);
  if (!isDirectory(db)) throw refuse(db, 'no such directory');
  if (!isDirectory(index)) throw refuse(index, 'no such index directory (give --index if it is not <db>/../index)');
  if (db === index) throw refuse(db, '--db and --index are the same directory');
  for (const name of [CheckpointName.writer, CheckpointName.chaser]) {
    if (!existsSync(join(db, name))) throw refuse(db, `it holds no ${name}`);
  }
  if ((await listChunkFiles(db)).length === 0) throw refuse(db, 'it holds no chunk files');
  return { db, index };
}

/** The chunk files of a database directory, in log order. */
export async function listChunkFiles(db: string): Promise<string[]> {
  return sortChunkFiles(await readdir(db));
}

/**
 * The 8 bytes of a checkpoint as they are at one moment: writer.chk and chaser.chk are rewritten
 * in place with every commit, so a read is repeated until two agree. Undefined if absent.
 */
export async function readCheckpointBytes(directory: string, name: string): Promise<Buffer | undefined> {
  const path = join(directory, name);
  let previous: Buffer | undefined;
  for (let read = 0; read < STABLE_READS_MAX; read++) {
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    if (bytes.length !== CHECKPOINT_BYTES) {
      throw Errors.storageCorrupt.create(path, 0, `checkpoint holds ${bytes.length} bytes instead of ${CHECKPOINT_BYTES}`);
    }
    if (previous?.equals(bytes)) return bytes;
    previous = bytes;
  }
  // Ten reads that all differ: the value is moving fast; the last one read is as good as any.
  return previous;
}

export function checkpointValue(bytes: Buffer): number {
  return readInt64(bytes, 0);
}

export async function readCheckpoint(directory: string, name: string): Promise<number | undefined> {
  const bytes = await readCheckpointBytes(directory, name);
  return bytes === undefined ? undefined : checkpointValue(bytes);
}

/** Whether a live process (the node) holds the database lock right now. */
export function nodeIsRunning(db: string): boolean {
  return lockOwnerPid(db) !== undefined;
}
