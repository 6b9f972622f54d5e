/**
 * How backup and restore put a file in place: under a temp name first, fsynced, then renamed, so
 * a name in a backup or a data directory always holds a whole file. A differential backup skips
 * names it already has, so a half-copied file under its real name would never be repaired.
 * Directories are fsynced at a backup's commit points (Durability.syncAll), not after every rename.
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, mkdir, stat, utimes, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Errors, isSvcError } from '../../common/errors.js';
import { fsyncDirectory } from '../../storage/disk/durable-file.js';
import { isDiskFull, writeFully } from '../../storage/disk/file-write.js';
import { copySparse } from './sparse-copy.js';
import { TEMP_SUFFIX } from '../../storage/layout.js';
import { PRIVATE_FILE_MODE } from '../../storage/disk/file-modes.js';
import { fileSystem } from '../../storage/disk/file-system.js';

/**
 * A source file's modification time is trusted as "unchanged since the copy" only when it was
 * older than this when the copy began: file times tick in jiffies, so a write right after a stat
 * can leave the time unchanged. Git's "racy clean" check guards its index the same way.
 */
const RACY_MARGIN_MS = 2000;
/** utimes() goes through a double of seconds; a time set from a stat comes back within this. */
const TIME_TOLERANCE_MS = 1;

/**
 * What a backup or restore makes durable before it says it is done: every file it writes (each
 * fsynced before its rename) and every directory whose entries changed (fsynced together at the
 * end). `svcdb backup --no-sync` turns both off, as `cp -r` or `tar` would leave them: the files
 * reach the disk when the OS writes them back, and a crash of the backup machine before that
 * can leave files the manifest counts whole torn (`svcdb backup verify` finds them).
 */
export class Durability {
  private readonly dirty = new Set<string>();

  /**
   * `onChange` hears of every change to the destination once it is made (a file put in place or
   * deleted, an archive entry written): tests stop the process there to kill it at a chosen step.
   */
  constructor(readonly synced = true, private readonly onChange: (change: string) => void = () => undefined) {}

  /** Records a change to `path` (made in its directory) for the final directory fsync. */
  changed(path: string, change: string): void {
    if (this.synced) this.dirty.add(dirname(path));
    this.onChange(`${change} ${path}`);
  }

  /** Reports a change that touches no directory entry yet (a temp file written whole, an archive entry). */
  report(change: string): void {
    this.onChange(change);
  }

  async syncAll(): Promise<void> {
    for (const directory of this.dirty) await fsyncDirectory(directory);
    this.dirty.clear();
  }

  async syncHandle(handle: FileHandle): Promise<void> {
    if (this.synced) await handle.sync();
  }

  /** Fsyncs a file written without it (by tar, by copyFile); returns its size. */
  async syncFileAt(path: string): Promise<number> {
    const handle = await fileSystem.open(path, 'r+');
    try {
      await this.syncHandle(handle);
      return (await handle.stat()).size;
    } finally {
      await handle.close();
    }
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * The coded error for a failed file operation of a backup or restore: a full disk or quota gets
 * its own code (the operator frees space and runs the command again), anything else is an I/O error.
 */
export function ioError(file: string, operation: string, error: unknown): Error {
  const cause = (error as Error).message ?? String(error);
  if (isDiskFull(error)) return Errors.backupDiskFull.create(file, `${operation}: ${cause}`);
  if (isSvcError(error)) return error;
  return Errors.backupIo.create(file, operation, cause);
}

function tempNameFor(path: string): string {
  return `${path}.${randomUUID()}${TEMP_SUFFIX}`;
}

/**
 * Writes a new file, fsynced unless `durability` says otherwise (no rename: callers that need one
 * do it). A write that stops short (the disk filled up part way) is never taken for the whole file.
 */
export async function writeFileSynced(path: string, contents: Buffer | string, durability = new Durability()): Promise<void> {
  const bytes = typeof contents === 'string' ? Buffer.from(contents) : contents;
  const handle = await fileSystem.open(path, 'wx', PRIVATE_FILE_MODE);
  try {
    await writeFully(handle, bytes, 0, bytes.length, 0, path);
    await durability.syncHandle(handle);
  } finally {
    await handle.close();
  }
}

/**
 * Renames a whole temp file over `path`, once `after` has resolved (the file before it in an
 * order the destination must keep, chunk-copy.ts); if `after` rejects, the temp file is dropped.
 */
async function placeTemp(temp: string, path: string, durability: Durability, after?: Promise<unknown>): Promise<void> {
  try {
    durability.report(`staged ${temp}`);
    await after;
    await fileSystem.rename(temp, path);
  } catch (error) {
    await fileSystem.unlink(temp).catch(() => undefined);
    throw ioError(path, 'rename into place', error);
  }
  durability.changed(path, 'placed');
}

/** Copies `source` to the new file `temp`, holes kept: a reflink where the file system has them. */
async function copyWithHoles(source: string, temp: string): Promise<void> {
  try {
    await copyFile(source, temp, constants.COPYFILE_FICLONE_FORCE);
    return;
  } catch (error) {
    if (isMissing(error)) throw error;
    await fileSystem.unlink(temp).catch(() => undefined);
  }
  const input = await fileSystem.open(source, 'r');
  try {
    const output = await fileSystem.open(temp, 'wx', PRIVATE_FILE_MODE);
    try {
      const { size } = await input.stat();
      await copySparse(input, output, size, size, temp, (position) => Errors.backupSourceChanged.create(`${source} ended at byte ${position}, before the ${size} bytes it had when the copy began`));
    } finally {
      await output.close();
    }
  } finally {
    await input.close();
  }
}

/**
 * Copies `source` to `target` whole, holes kept. Returns the bytes copied, or undefined when the
 * source no longer exists (an index file merged away, for instance): callers decide whether that
 * matters.
 */
export async function copyFileDurably(
  source: string, target: string, durability: Durability, after?: Promise<unknown>,
): Promise<number | undefined> {
  await mkdir(dirname(target), { recursive: true });
  const temp = tempNameFor(target);
  let bytes: number;
  try {
    await copyWithHoles(source, temp);
    bytes = await durability.syncFileAt(temp);
  } catch (error) {
    await fileSystem.unlink(temp).catch(() => undefined);
    // The target's directory was just made, so a missing file is the source.
    if (isMissing(error)) return undefined;
    if (Errors.backupSourceChanged.is(error)) throw error;
    // A full disk is the target's; any other failure is reported against the file being read.
    throw ioError(isDiskFull(error) ? target : source, 'copy', error);
  }
  await placeTemp(temp, target, durability, after);
  return bytes;
}

/**
 * Copies the first `prefixBytes` of `source` and makes the copy `fileBytes` long, zero-filled
 * (sparse) after the prefix: an ongoing chunk is copied up to what writer.chk covers, the rest of
 * its preallocated size is zeroes in the copy. Returns the bytes read, or undefined if the source
 * vanished.
 */
export async function copyPrefixDurably(
  source: string, target: string, prefixBytes: number, fileBytes: number, durability: Durability, after?: Promise<unknown>,
): Promise<number | undefined> {
  await mkdir(dirname(target), { recursive: true });
  let input;
  try {
    input = await fileSystem.open(source, 'r');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw ioError(source, 'open', error);
  }
  const temp = tempNameFor(target);
  try {
    const output = await fileSystem.open(temp, 'wx', PRIVATE_FILE_MODE);
    try {
      await copySparse(input, output, prefixBytes, fileBytes, temp, (position) => Errors.backupSourceChanged.create(`${source} ended at byte ${position}, before the ${prefixBytes} bytes writer.chk covers`));
      await durability.syncHandle(output);
    } finally {
      await output.close();
    }
  } catch (error) {
    await fileSystem.unlink(temp).catch(() => undefined);
    throw Errors.backupSourceChanged.is(error) ? error : ioError(target, 'copy', error);
  } finally {
    await input.close();
  }
  await placeTemp(temp, target, durability, after);
  return prefixBytes;
}

/** Writes `bytes` as `target` (checkpoints, manifests, an indexmap read into memory). */
export async function writeBytesDurably(target: string, bytes: Buffer | string, durability: Durability): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  const temp = tempNameFor(target);
  try {
    await writeFileSynced(temp, bytes, durability);
  } catch (error) {
    await fileSystem.unlink(temp).catch(() => undefined);
    throw ioError(target, 'write', error);
  }
  await placeTemp(temp, target, durability);
}

/**
 * Replaces `target` with `bytes` durably at once, whatever `--no-sync` says: the manifest, whose
 * word on what the folder holds must never run ahead of the disk.
 */
export async function replaceFileNow(target: string, bytes: Buffer | string): Promise<void> {
  const durability = new Durability(true);
  await writeBytesDurably(target, bytes, durability);
  await durability.syncAll();
}

export interface QuickCopy {
  /** Bytes copied; 0 when the copy was skipped. */
  bytes: number;
  copied: boolean;
}

/**
 * Copies a file that is rewritten in place (the existence filter, the scavenge state) unless the
 * copy already matches it by size and modification time, as rsync decides (`always` copies it
 * anyway, for a full backup). The copy carries the source's time only when that time is old
 * enough to be trusted (RACY_MARGIN_MS); otherwise the next differential copies it again.
 * Returns undefined when the source does not exist.
 */
export async function copyIfChanged(
  source: string, target: string, durability: Durability, always = false,
): Promise<QuickCopy | undefined> {
  let before;
  try {
    before = await stat(source);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw ioError(source, 'stat', error);
  }
  const copy = always ? undefined : await stat(target).catch(() => undefined);
  if (copy && copy.size === before.size && Math.abs(copy.mtimeMs - before.mtimeMs) < TIME_TOLERANCE_MS) {
    return { bytes: 0, copied: false };
  }
  const startedMs = Date.now();
  const bytes = await copyFileDurably(source, target, durability);
  if (bytes === undefined) return undefined;
  if (startedMs - before.mtimeMs > RACY_MARGIN_MS) {
    await utimes(target, before.atime, before.mtime).catch((error: unknown) => {
      throw ioError(target, 'set modification time', error);
    });
  }
  return { bytes, copied: true };
}

/** Deletes a file if it exists. */
export async function removeFile(path: string, durability: Durability): Promise<boolean> {
  try {
    await fileSystem.unlink(path);
  } catch (error) {
    if (isMissing(error)) return false;
    throw ioError(path, 'delete', error);
  }
  durability.changed(path, 'removed');
  return true;
}

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
