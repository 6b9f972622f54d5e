import { close, closeSync, fstat, read } from 'node:fs';
import { readData } from '../disk/cold-reads.js';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Errors } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { BloomFilter, type BloomKey } from './bloom-filter.js';
import { BLOOM_FILTER_SUFFIX } from '../layout.js';
import {
  CHECKSUM_BYTES, ENTRY_BYTES, FOOTER_BYTES, HEADER_BYTES, MIDPOINT_BYTES,
  compareEntryToKey, decodeFooter, decodeHeader, entryEventNumber, entryHigh, entryLogPosition, entryLow,
  fileSizeFor, midpointCountFor,
} from './index-file-format.js';
import { Midpoints } from './midpoints.js';
import type { IndexEntry } from './types.js';
import { fileSystem } from '../disk/file-system.js';

/** Entries read per positional read: two midpoint intervals, 6 KiB. */
const READ_ENTRIES = 256;
const FIRST_DESCENDING_READ_ENTRIES = 32;
const VERIFY_CHUNK_BYTES = 1 << 20;
const readAsync = promisify(read);
const fstatAsync = promisify(fstat);
const closeAsync = promisify(close);

/**
 * Shared by the synchronous range lookups of every file: they run to completion on one thread,
 * so one buffer serves them all. Generators, which pause between reads, bring their own.
 */
const rangeScratch = Buffer.alloc(READ_ENTRIES * ENTRY_BYTES);

export function bloomFilterPathOf(indexFilePath: string): string {
  return `${indexFilePath}${BLOOM_FILTER_SUFFIX}`;
}

export interface IndexFileOpenOptions {
  /** Check the md5 of the whole file (reads it all once). */
  verify: boolean;
  logger: Logger;
}

export interface IndexFileParts {
  id: string;
  path: string;
  fd: number;
  level: number;
  entryCount: number;
  distinctHashes: number;
  midpoints: Midpoints;
  bloom: BloomFilter | undefined;
  /** Told when a retired file cannot be deleted. */
  logger: Logger;
}

/**
 * One immutable, sorted index file, open for lookups with synchronous positional reads. Shared
 * by lookups in flight and the index: `acquire`/`release` count users, and a retired file (merged
 * away or cleared) is closed and deleted once the last user is done.
 */
export class IndexFile {
  readonly id: string;
  readonly path: string;
  readonly level: number;
  readonly entryCount: number;
  readonly distinctHashes: number;
  private fd: number;
  private readonly midpoints: Midpoints;
  private readonly bloom: BloomFilter | undefined;
  private users = 1;
  private retired = false;
  private deleting: Promise<void> | undefined;
  private readonly logger: Logger;

  constructor(parts: IndexFileParts) {
    this.id = parts.id;
    this.path = parts.path;
    this.fd = parts.fd;
    this.level = parts.level;
    this.entryCount = parts.entryCount;
    this.distinctHashes = parts.distinctHashes;
    this.midpoints = parts.midpoints;
    this.bloom = parts.bloom;
    this.logger = parts.logger;
  }

  /** Opens `<directory>/<id>`, checking its structure and, with `verify`, its md5. */
  static async open(directory: string, id: string, options: IndexFileOpenOptions): Promise<IndexFile> {
    const path = join(directory, id);
    let fd: number;
    try {
      fd = fileSystem.openSync(path, 'r');
    } catch (error) {
      throw Errors.indexCorrupt.create(path, `cannot open: ${String(error)}`);
    }
    try {
      return await IndexFile.load(fd, path, id, options);
    } catch (error) {
      await closeAsync(fd);
      throw error;
    }
  }

  private static async load(fd: number, path: string, id: string, options: IndexFileOpenOptions): Promise<IndexFile> {
    const size = (await fstatAsync(fd)).size;
    if (size < HEADER_BYTES + FOOTER_BYTES) throw Errors.indexCorrupt.create(path, `file of ${size} bytes is too short`);
    if (options.verify) await verifyChecksum(fd, size, path);
    const header = decodeHeader(await readExactly(fd, 0, HEADER_BYTES, path));
    if (typeof header === 'string') throw Errors.indexCorrupt.create(path, header);
    const footer = decodeFooter(await readExactly(fd, size - FOOTER_BYTES, FOOTER_BYTES, path));
    if (typeof footer === 'string') throw Errors.indexCorrupt.create(path, footer);
    const problem = describeSizeProblem(header.entryCount, footer.entryCount, footer.midpointCount, header.midpointInterval, size);
    if (problem !== undefined) throw Errors.indexCorrupt.create(path, problem);
    const midpointsOffset = HEADER_BYTES + header.entryCount * ENTRY_BYTES;
    const midpointBytes = await readExactly(fd, midpointsOffset, footer.midpointCount * MIDPOINT_BYTES, path);
    const midpoints = Midpoints.decode(midpointBytes, footer.midpointCount);
    const midpointProblem = midpoints.validate(header.entryCount);
    if (midpointProblem !== undefined) throw Errors.indexCorrupt.create(path, midpointProblem);
    const bloom = await loadBloomFilter(path, options.logger);
    return new IndexFile({
      id, path, fd, level: header.level, entryCount: header.entryCount,
      distinctHashes: footer.distinctHashes, midpoints, bloom, logger: options.logger,
    });
  }

  /** False when the file certainly holds no entry of the hash: outside its key range, or not in its bloom filter. */
  mightContain(high: number, low: number, key: BloomKey): boolean {
    const midpoints = this.midpoints;
    if (midpoints.count === 0) return false;
    if (high < midpoints.minHigh || (high === midpoints.minHigh && low < midpoints.minLow)) return false;
    if (high > midpoints.maxHigh || (high === midpoints.maxHigh && low > midpoints.maxLow)) return false;
    return this.bloom === undefined || this.bloom.mightContain(key);
  }

  /** Appends the entries of the hash numbered from..to (inclusive) to `out`, ascending, not exact. */
  appendRange(high: number, low: number, fromEventNumber: number, toEventNumber: number, out: IndexEntry[]): void {
    const start = this.midpoints.startFor(high, low, fromEventNumber);
    const end = this.midpoints.endAfter(high, low, toEventNumber, this.entryCount);
    let index = start;
    let seeking = true;
    while (index < end) {
      const count = Math.min(READ_ENTRIES, end - index);
      this.read(rangeScratch, index, count);
      let offset = 0;
      if (seeking) {
        // Midpoints put the first match within one interval of `start`; search, don't assume.
        const first = firstAtLeast(rangeScratch, count, high, low, fromEventNumber);
        seeking = first === count;
        offset = first * ENTRY_BYTES;
      }
      const endOffset = count * ENTRY_BYTES;
      for (; offset < endOffset; offset += ENTRY_BYTES) {
        if (compareEntryToKey(rangeScratch, offset, high, low, toEventNumber) > 0) return;
        out.push({ eventNumber: entryEventNumber(rangeScratch, offset), logPosition: entryLogPosition(rangeScratch, offset), exact: false });
      }
      index += count;
    }
  }

  /**
   * Yields the entries of the hash with event numbers below `beforeEventNumber`, highest first.
   * The caller holds a reference (acquire/release) for as long as it iterates.
   */
  *descending(high: number, low: number, beforeEventNumber: number): Generator<IndexEntry, void, undefined> {
    const start = this.midpoints.startFor(high, low, -Infinity);
    let end = this.midpoints.endBefore(high, low, beforeEventNumber, this.entryCount);
    // The first read is small (most callers stop at the first entry), later ones a full interval.
    let buffer = Buffer.allocUnsafe(FIRST_DESCENDING_READ_ENTRIES * ENTRY_BYTES);
    while (end > start) {
      const count = Math.min(buffer.length / ENTRY_BYTES, end - start);
      const first = end - count;
      this.read(buffer, first, count);
      for (let offset = (count - 1) * ENTRY_BYTES; offset >= 0; offset -= ENTRY_BYTES) {
        const entryHash = entryHigh(buffer, offset) - high || entryLow(buffer, offset) - low;
        if (entryHash < 0) return;
        if (entryHash > 0) continue;
        const eventNumber = entryEventNumber(buffer, offset);
        if (eventNumber >= beforeEventNumber) continue;
        yield { eventNumber, logPosition: entryLogPosition(buffer, offset), exact: false };
      }
      end = first;
      if (buffer.length < READ_ENTRIES * ENTRY_BYTES) buffer = Buffer.allocUnsafe(READ_ENTRIES * ENTRY_BYTES);
    }
  }

  acquire(): void {
    if (this.users === 0) throw new TypeError(`index file ${this.id} is already closed`);
    this.users++;
  }

  release(): void {
    this.users--;
    if (this.users === 0) this.closeAndMaybeDelete();
  }

  /**
   * Drops the index's own reference: the file is closed and deleted from disk once no lookup uses
   * it any more. Call only after a map without it is durable.
   */
  retire(): void {
    if (this.retired) return;
    this.retired = true;
    this.release();
  }

  /** Closes the descriptor now, whoever still uses it (their next read fails). */
  forceClose(): void {
    if (this.fd >= 0) {
      closeSync(this.fd);
      this.fd = -1;
    }
  }

  /** Settles once a retired file is deleted from disk; undefined until its last user is gone. */
  get deletion(): Promise<void> | undefined {
    return this.deleting;
  }

  private closeAndMaybeDelete(): void {
    this.forceClose();
    if (!this.retired) return;
    this.deleting = Promise.all([this.path, bloomFilterPathOf(this.path)].map((path) => this.deleteQuietly(path))).then(() => undefined);
  }

  private async deleteQuietly(path: string): Promise<void> {
    try {
      await fileSystem.unlink(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      // A leftover file is removed at the next open, as it is no longer in the map.
      this.logger.warn({ file: path, error: String(error) }, 'could not delete a retired index file');
    }
  }

  private read(buffer: Buffer, firstEntry: number, count: number): void {
    if (this.fd < 0) throw Errors.storageClosed.create(`index file ${this.id} is closed`);
    const length = count * ENTRY_BYTES;
    const position = HEADER_BYTES + firstEntry * ENTRY_BYTES;
    let done = 0;
    try {
      while (done < length) {
        const bytes = readData(this.fd, buffer, done, length - done, position + done);
        if (bytes === 0) throw Errors.indexCorrupt.create(this.path, `file ends before entry ${firstEntry + count}`);
        done += bytes;
      }
    } catch (error) {
      if ((error as { code?: string }).code?.startsWith('SVCDB_')) throw error;
      throw Errors.storageIo.create(this.path, 'read', String(error));
    }
  }
}

/** The index of the first of `count` entries in `buffer` whose key is >= (high, low, eventNumber). */
function firstAtLeast(buffer: Buffer, count: number, high: number, low: number, eventNumber: number): number {
  let lowIndex = 0;
  let highIndex = count;
  while (lowIndex < highIndex) {
    const middle = (lowIndex + highIndex) >>> 1;
    if (compareEntryToKey(buffer, middle * ENTRY_BYTES, high, low, eventNumber) < 0) lowIndex = middle + 1;
    else highIndex = middle;
  }
  return lowIndex;
}

function describeSizeProblem(entryCount: number, footerEntryCount: number, midpointCount: number, interval: number, size: number): string | undefined {
  if (entryCount !== footerEntryCount) return `header says ${entryCount} entries, footer ${footerEntryCount}`;
  if (interval < 1) return `midpoint interval ${interval}`;
  if (midpointCount !== midpointCountFor(entryCount, interval)) return `${midpointCount} midpoints for ${entryCount} entries`;
  const expected = fileSizeFor(entryCount, midpointCount);
  if (size !== expected) return `file is ${size} bytes, expected ${expected}`;
  return undefined;
}

async function readExactly(fd: number, position: number, length: number, path: string): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await readAsync(fd, buffer, done, length - done, position + done);
    if (bytesRead === 0) throw Errors.indexCorrupt.create(path, `file ends before byte ${position + length}`);
    done += bytesRead;
  }
  return buffer;
}

async function verifyChecksum(fd: number, size: number, path: string): Promise<void> {
  const hash = createHash('md5');
  const buffer = Buffer.allocUnsafe(VERIFY_CHUNK_BYTES);
  const hashedEnd = size - CHECKSUM_BYTES;
  let position = 0;
  while (position < hashedEnd) {
    const { bytesRead } = await readAsync(fd, buffer, 0, Math.min(VERIFY_CHUNK_BYTES, hashedEnd - position), position);
    if (bytesRead === 0) throw Errors.indexCorrupt.create(path, 'file shrank while being verified');
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  const stored = await readExactly(fd, hashedEnd, CHECKSUM_BYTES, path);
  if (!hash.digest().equals(stored)) throw Errors.indexCorrupt.create(path, 'md5 checksum mismatch');
}

/** A missing or unreadable bloom filter only costs speed: the file is searched without one. */
async function loadBloomFilter(indexFilePath: string, logger: Logger): Promise<BloomFilter | undefined> {
  const path = bloomFilterPathOf(indexFilePath);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    logger.warn({ file: path, error: String(error) }, 'index bloom filter missing; lookups in this file skip it');
    return undefined;
  }
  try {
    const { filter, corruptLines } = BloomFilter.load(bytes, path);
    if (corruptLines > 0) logger.warn({ file: path, corruptLines }, 'index bloom filter had corrupt lines; they now match everything');
    return filter;
  } catch (error) {
    logger.warn({ file: path, error: String(error) }, 'index bloom filter unreadable; lookups in this file skip it');
    return undefined;
  }
}
