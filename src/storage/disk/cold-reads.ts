/**
 * Reads of the log and the index that never stall the event loop on a cold page.
 *
 * The engine reads chunks and index files with synchronous positional reads: cheap when the page
 * is in the page cache, but a page on the disk holds the event loop for the whole disk read, and
 * with it every append waiting to be acknowledged. Rather than write every read twice (sync and
 * async), a read is run off the loop: `readOffLoop(read)` runs the synchronous `read` while
 * `readData` is allowed only what the page cache holds (preadv2 with RWF_NOWAIT, native/page-cache.c).
 * A miss abandons the attempt; the missing range is read into the page cache on the thread pool,
 * and `read` runs again from its start. Reads have no side effects but caches of what they found,
 * so running one again is safe, and each attempt gets further: every miss warms a new range.
 *
 * Outside readOffLoop, and where the kernel cannot read without waiting, `readData` reads as it
 * always did. So does it while a test's file system is installed: faults go where tests put them.
 */
import { closeSync, read as readOnThreadPool } from 'node:fs';
import { loadNativeAddon } from '../../common/native-addon.js';
import { fileSystem, nodeFileSystem } from './file-system.js';

interface PageCacheAddon {
  /** Bytes read; -1 when part of the range is not cached; -2 when reading without waiting is not supported. */
  readCached(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  dropCached(fd: number): void;
}

const COLD = -1;
/** A miss warms at least this much from where it missed: a scan reads on from there. */
const WARM_BYTES = 256 * 1024;
/** Misses after which a read is finished the blocking way: it has met more cold pages than a page of events spans. */
const MISSES_MAX = 4096;

/**
 * A read off the loop met a range that is not in the page cache. Never leaves readOffLoop: an
 * attempt that met one is abandoned whatever the read path made of the error.
 */
class ColdRead extends Error {
  constructor(readonly fd: number, readonly position: number, readonly length: number) {
    super('a cold range was read off the event loop');
  }
}

/** How often reads off the loop met cold pages, and how much they warmed. */
export const coldReadCounters = { misses: 0, warmedBytes: 0 };

let offLoopDepth = 0;
/** The cold range met by the attempt under way, even if a catch on the read path swallowed its error. */
let missed: ColdRead | undefined;
let addon: PageCacheAddon | undefined;
let supported = true;

function pageCache(): PageCacheAddon | undefined {
  if (!supported) return undefined;
  try {
    addon ??= loadNativeAddon<PageCacheAddon>('page_cache', 'page-cache reads');
  } catch {
    // Without the native module every read blocks as it did before it existed.
    supported = false;
  }
  return addon;
}

/**
 * A positional read of chunk or index bytes (readSync's contract). Inside readOffLoop, a range
 * that is not in the page cache ends the attempt instead of waiting for the disk.
 */
export function readData(fd: number, buffer: Buffer, offset: number, length: number, position: number): number {
  const cache = offLoopDepth > 0 && fileSystem === nodeFileSystem ? pageCache() : undefined;
  if (cache !== undefined) {
    const read = cache.readCached(fd, buffer, offset, length, position);
    if (read >= 0) return read;
    if (read === COLD) {
      missed = new ColdRead(fd, position, length);
      throw missed;
    }
    supported = false;
  }
  return fileSystem.readSync(fd, buffer, offset, length, position);
}

/** Runs `read` without ever waiting for the disk on the event loop (see the file's comment). */
export async function readOffLoop<T>(read: () => T): Promise<T> {
  let previous: ColdRead | undefined;
  for (let misses = 0; misses < MISSES_MAX; misses++) {
    const outcome = attempt(read);
    if (!(outcome instanceof ColdRead)) return outcome.value;
    // A range cold again right after it was warmed (a page cache under pressure) is read the blocking way.
    if (previous?.fd === outcome.fd && previous.position === outcome.position) break;
    previous = outcome;
    await warm(outcome);
  }
  return read();
}

/**
 * As readOffLoop, for a read done only for what it leaves in caches: undefined when it finished
 * at once (nothing was cold), so that a caller on a hot path need not wait a turn.
 */
export function warmOffLoop(read: () => void): Promise<void> | undefined {
  const outcome = attempt(read);
  if (!(outcome instanceof ColdRead)) return undefined;
  return warm(outcome).then(() => readOffLoop(read));
}

/** Runs `read` once off the loop: its value, or the cold range that ended it. */
function attempt<T>(read: () => T): { value: T } | ColdRead {
  const outer = missed;
  missed = undefined;
  offLoopDepth++;
  try {
    const value = read();
    // A cold read that a catch turned into something else (a link left unresolved, say) still ends the attempt.
    return missed ?? { value };
  } catch (error) {
    if (missed !== undefined) return missed;
    throw error;
  } finally {
    offLoopDepth--;
    missed = outer;
  }
}

/** Reads the missed range (and what follows it) on the thread pool, into the page cache. */
function warm({ fd, position, length }: ColdRead): Promise<void> {
  coldReadCounters.misses++;
  const buffer = Buffer.allocUnsafe(Math.max(length, WARM_BYTES));
  return new Promise((resolve) => {
    // An error is left for the next attempt to meet and report: it reads the same range.
    readOnThreadPool(fd, buffer, 0, buffer.length, position, (_error, bytesRead) => {
      coldReadCounters.warmedBytes += bytesRead ?? 0;
      resolve();
    });
  });
}

/** Drops a file's pages from the page cache, for tests and benchmarks that need it cold; false where unsupported. */
export function dropFromPageCache(path: string): boolean {
  const cache = pageCache();
  if (cache === undefined) return false;
  const fd = fileSystem.openSync(path, 'r');
  try {
    cache.dropCached(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}
