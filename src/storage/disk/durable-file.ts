import { closeSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Errors } from '../../common/errors.js';
import { storageError, writeFully, writeFullySync } from './file-write.js';
import { PRIVATE_FILE_MODE } from './file-modes.js';
import { fileSystem } from './file-system.js';

/** Makes a rename or a create in `directory` durable. */
export async function fsyncDirectory(directory: string): Promise<void> {
  const handle = await fileSystem.open(directory, 'r');
  try {
    await handle.sync();
  } catch (error) {
    throw Errors.storageIo.create(directory, 'fsync of directory', String(error));
  } finally {
    await handle.close();
  }
}

export function fsyncDirectorySync(directory: string): void {
  const fd = fileSystem.openSync(directory, 'r');
  try {
    fileSystem.fsyncSync(fd);
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
 * contents, never a mix: write a temp file, fsync it, rename it over, fsync the directory. A
 * write that fails (a full disk) leaves the old file and no temp file behind.
 */
export async function replaceFileDurably(path: string, contents: Buffer | string): Promise<void> {
  const temp = tempNameFor(path);
  try {
    const handle = await fileSystem.open(temp, 'w', PRIVATE_FILE_MODE);
    const bytes = typeof contents === 'string' ? Buffer.from(contents) : contents;
    try {
      await writeFully(handle, bytes, 0, bytes.length, 0, temp);
      await syncOrThrowFatal(() => handle.sync(), temp);
    } finally {
      await handle.close();
    }
    await fileSystem.rename(temp, path);
  } catch (error) {
    await fileSystem.unlink(temp).catch(() => undefined);
    throw storageError(temp, 'write', error);
  }
  await fsyncDirectory(dirname(path));
}

/** The synchronous form of replaceFileDurably, for start-up and shutdown paths. */
export function replaceFileDurablySync(path: string, contents: Buffer | string): void {
  const temp = tempNameFor(path);
  const bytes = typeof contents === 'string' ? Buffer.from(contents) : contents;
  try {
    const fd = fileSystem.openSync(temp, 'w', PRIVATE_FILE_MODE);
    try {
      writeFullySync(fd, bytes, 0, bytes.length, 0, temp);
      syncOrThrowFatalSync(() => fileSystem.fsyncSync(fd), temp);
    } finally {
      closeSync(fd);
    }
    fileSystem.renameSync(temp, path);
  } catch (error) {
    try {
      fileSystem.unlinkSync(temp);
    } catch {
      // The temp file was never made, or is gone already.
    }
    throw storageError(temp, 'write', error);
  }
  fsyncDirectorySync(dirname(path));
}

async function syncOrThrowFatal(sync: () => Promise<void>, path: string): Promise<void> {
  try {
    await sync();
  } catch (error) {
    throw Errors.storageIo.create(path, 'fsync', String(error));
  }
}

function syncOrThrowFatalSync(sync: () => void, path: string): void {
  try {
    sync();
  } catch (error) {
    throw Errors.storageIo.create(path, 'fsync', String(error));
  }
}
