/**
 * The node being backed up, seen through its data directories only: no lock is taken and nothing
 * the engine owns is written, so a live node keeps running while its files are read.
 */
import { existsSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Errors } from '../../common/errors.js';
import { CheckpointName, sortChunkFiles } from '../../storage/layout.js';
import { readCheckpointFile } from '../../storage/log/checkpoint.js';
import { lockOwnerPid } from '../../storage/disk/lock.js';

export interface DataDirectories {
  db: string;
  index: string;
}

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

/** A checkpoint's bytes and value as they are at one moment (storage reads it); undefined if absent. */
export function readCheckpointAt(directory: string, name: string): Promise<{ bytes: Buffer; value: number } | undefined> {
  return readCheckpointFile(join(directory, name));
}

export async function readCheckpoint(directory: string, name: string): Promise<number | undefined> {
  return (await readCheckpointAt(directory, name))?.value;
}

/** Whether a live process (the node) holds the database lock right now. */
export function nodeIsRunning(db: string): boolean {
  return lockOwnerPid(db) !== undefined;
}
