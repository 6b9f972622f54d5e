import { open, rename, unlink } from 'node:fs/promises';
import { openSync, writeSync, fsyncSync, closeSync, renameSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Errors } from '../common/errors.js';

/** Makes a rename or a create in `directory` durable. */
export async function fsyncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } catch (error) {
    throw Errors.storageIo.create(directory, 'fsync of directory', String(error));
  } finally {
    await handle.close();
  }
}

export function fsyncDirectorySync(directory: string): void {
  const fd = openSync(directory, 'r');
  try {
    fsyncSync(fd);
  } catch (error) {
    throw Errors.storageIo.create(directory, 'fsync of directory', String(error));
  } finally {
    closeSync(fd);
  }
}

function tempNameFor(path: string): string {
  return join(dirname(path), `${basename(path)}.${randomUUID()}.tmp`);
}

/**
 * Replaces `path` with `contents` so that after a crash the file holds either the old or the new
 * contents, never a mix: write a temp file, fsync it, rename it over, fsync the directory.
 */
export async function replaceFileDurably(path: string, contents: Buffer | string): Promise<void> {
  const temp = tempNameFor(path);
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(contents);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw Errors.storageIo.create(temp, 'write', String(error));
  }
  await handle.close();
  await rename(temp, path);
  await fsyncDirectory(dirname(path));
}

/** The synchronous form of replaceFileDurably, for start-up and shutdown paths. */
export function replaceFileDurablySync(path: string, contents: Buffer | string): void {
  const temp = tempNameFor(path);
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, typeof contents === 'string' ? Buffer.from(contents) : contents);
    fsyncSync(fd);
  } catch (error) {
    throw Errors.storageIo.create(temp, 'write', String(error));
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  fsyncDirectorySync(dirname(path));
}
