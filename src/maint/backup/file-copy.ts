/**
 * How backup and restore put a file in place: under a temp name first, fsynced, then renamed, so
 * a name in a backup or a data directory always holds a whole file. A differential backup skips
 * names it already has, so a half-copied file under its real name would never be repaired.
 * Directories are fsynced once at the end (Durability), not after every rename.
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, mkdir, open, rename, stat, unlink, utimes, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Errors, isSvcError } from '../../common/errors.js';
import { fsyncDirectory } from '../../storage/durable-file.js';
import { TEMP_SUFFIX } from './layout.js';

const COPY_BLOCK_BYTES = 4 * 1024 * 1024;
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

  constructor(readonly synced = true) {}

  mark(directory: string): void {
    if (this.synced) this.dirty.add(directory);
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
    const handle = await open(path, 'r+');
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

function ioError(file: string, operation: string, error: unknown): Error {
  return Errors.backupIo.create(file, operation, (error as Error).message ?? String(error));
}

function tempNameFor(path: string): string {
  return `${path}.${randomUUID()}${TEMP_SUFFIX}`;
}

/** Writes a new file, fsynced unless `durability` says otherwise (no rename: callers that need one do it). */
export async function writeFileSynced(path: string, contents: Buffer | string, durability = new Durability()): Promise<void> {
  const handle = await open(path, 'wx');
  try {
    await handle.writeFile(contents);
    await durability.syncHandle(handle);
  } finally {
    await handle.close();
  }
}

async function placeTemp(temp: string, path: string, durability: Durability): Promise<void> {
  try {
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw ioError(path, 'rename into place', error);
  }
  durability.mark(dirname(path));
}

/**
 * Copies `source` to `target` whole. Returns the bytes copied, or undefined when the source no
 * longer exists (an index file merged away, for instance): callers decide whether that matters.
 */
export async function copyFileDurably(source: string, target: string, durability: Durability): Promise<number | undefined> {
  await mkdir(dirname(target), { recursive: true });
  const temp = tempNameFor(target);
  let bytes: number;
  try {
    // A reflink where the file system has them, an in-kernel copy otherwise.
    await copyFile(source, temp, constants.COPYFILE_FICLONE);
    bytes = await durability.syncFileAt(temp);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    // The target's directory was just made, so a missing file is the source.
    if (isMissing(error)) return undefined;
    throw ioError(source, 'copy', error);
  }
  await placeTemp(temp, target, durability);
  return bytes;
}

/**
 * Copies the first `prefixBytes` of `source` and makes the copy `fileBytes` long, zero-filled
 * (sparse) after the prefix: an ongoing chunk is copied up to what writer.chk covers, the rest of
 * its preallocated size is zeroes in the copy. Returns the bytes read, or undefined if the source
 * vanished.
 */
export async function copyPrefixDurably(
  source: string, target: string, prefixBytes: number, fileBytes: number, durability: Durability,
): Promise<number | undefined> {
  await mkdir(dirname(target), { recursive: true });
  let input;
  try {
    input = await open(source, 'r');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw ioError(source, 'open', error);
  }
  const temp = tempNameFor(target);
  try {
    const output = await open(temp, 'wx');
    try {
      await copyRange(input, output, prefixBytes, source);
      await output.truncate(fileBytes);
      await durability.syncHandle(output);
    } finally {
      await output.close();
    }
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw isSvcError(error) ? error : ioError(target, 'copy', error);
  } finally {
    await input.close();
  }
  await placeTemp(temp, target, durability);
  return prefixBytes;
}

async function copyRange(input: FileHandle, output: FileHandle, length: number, source: string): Promise<void> {
  const block = Buffer.allocUnsafe(Math.min(COPY_BLOCK_BYTES, Math.max(length, 1)));
  for (let position = 0; position < length;) {
    const want = Math.min(block.length, length - position);
    const { bytesRead } = await input.read(block, 0, want, position);
    if (bytesRead === 0) {
      throw Errors.backupSourceChanged.create(`${source} ended at byte ${position}, before the ${length} bytes writer.chk covers`);
    }
    await output.write(block, 0, bytesRead, position);
    position += bytesRead;
  }
}

/** Writes `bytes` as `target` (checkpoints, manifests, an indexmap read into memory). */
export async function writeBytesDurably(target: string, bytes: Buffer | string, durability: Durability): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  const temp = tempNameFor(target);
  try {
    await writeFileSynced(temp, bytes, durability);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw ioError(target, 'write', error);
  }
  await placeTemp(temp, target, durability);
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
    await unlink(path);
  } catch (error) {
    if (isMissing(error)) return false;
    throw ioError(path, 'delete', error);
  }
  durability.mark(dirname(path));
  return true;
}

export async function renameFile(from: string, to: string, durability: Durability): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    throw ioError(from, 'rename', error);
  }
  durability.mark(dirname(to));
}

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
