/**
 * Checks redacted copies of chunks against the chunks they would replace, up to four at once in
 * one pass over the files: the same size and range, every byte the same except inside event
 * records that acceptsRedaction allows (data as 0xFF, IsRedacted set, checksum recomputed), and
 * an MD5 in the footer that matches the contents. Comparing whole blocks natively and decoding
 * only the records that differ keeps it near the speed of reading the files; the copies are
 * hashed side by side (Md5Lanes). The contents can be checked before the redactor has written
 * the hash (checkRedactedCopies): the switch then compares the hash written with the one found.
 */
import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { Md5Lanes } from '../../common/md5-lanes.js';
import { Errors } from '../../common/errors.js';
import { CHUNK_HASH_BYTES, CHUNK_HEADER_BYTES } from '../log/chunk-format.js';
import type { Chunk } from '../log/chunk.js';
import { peekEventKey } from '../log/record.js';
import { acceptsRedaction } from './redaction.js';
import { METADATA_STREAM_PREFIX } from '../streams/stream-metadata.js';
import { fileSystem } from '../disk/file-system.js';

/** Bytes read from each file at once: four copies and their originals, two blocks each, stay within the CPU's caches. */
const BLOCK_BYTES = 1024 * 1024;
/** Below this many bytes a differing span is searched byte by byte. */
const LINEAR_SEARCH_BYTES = 64;

/** Spans compared at once when looking for a difference: each is compared once, however many differ. */
const WINDOW_BYTES = 64 * 1024;

/** The index of the first byte in from..to where `a` and `b` differ, or -1. */
export function firstDifference(a: Buffer, b: Buffer, from: number, to: number): number {
  for (let start = from; start < to; start += WINDOW_BYTES) {
    const end = Math.min(to, start + WINDOW_BYTES);
    if (a.compare(b, start, end, start, end) !== 0) return differenceWithin(a, b, start, end);
  }
  return -1;
}

/** The first differing index in a span known to differ, by halving it. */
function differenceWithin(a: Buffer, b: Buffer, from: number, to: number): number {
  let low = from;
  let high = to;
  while (high - low > LINEAR_SEARCH_BYTES) {
    const middle = (low + high) >>> 1;
    if (a.compare(b, low, middle, low, middle) === 0) low = middle;
    else high = middle;
  }
  for (let i = low; i < high; i++) if (a[i] !== b[i]) return i;
  return -1;
}

async function readAt(handle: FileHandle, length: number, position: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  if (bytesRead !== length) throw new RangeError(`short read at ${position}`);
  return buffer;
}

/** Walks record starts in the target's data section, forward only, reading lengths from the blocks in hand. */
class RecordWalker {
  start: number;
  end: number;

  constructor(private readonly dataStart: number, private readonly dataEnd: number) {
    this.start = dataStart;
    this.end = dataStart;
  }

  /**
   * Advances to the record that holds file offset `at` (or past every record ending by it).
   * `lengthAt` gives a record's length from the blocks in hand, `readLength` from the file.
   */
  async advance(
    at: number, lengthAt: (offset: number) => number | undefined, readLength: (offset: number) => Promise<number>, refuse: (why: string) => Error,
  ): Promise<void> {
    while (this.end <= at && this.end < this.dataEnd) {
      this.start = this.end;
      const framed = (lengthAt(this.start) ?? (await readLength(this.start))) + 8;
      if (this.start + framed > this.dataEnd) throw refuse(`the target's record at byte ${this.start} runs past its data`);
      this.end = this.start + framed;
    }
  }

  get dataRange(): [number, number] {
    return [this.dataStart, this.dataEnd];
  }
}


/** The bytes of both files at `start`..`end`: from the blocks in hand when they hold them, else read. */
type SpanReader = (start: number, end: number) => Promise<[Buffer, Buffer]>;

/**
 * Checks the record of the target that holds file offset `offset` (where the files differ):
 * a redaction of a record that is not metadata of a stream. Returns where that record ends.
 */
async function checkDifferingRecord(offset: number, walker: RecordWalker, span: SpanReader, target: Chunk, refuse: (why: string) => Error): Promise<number> {
  const [dataStart, dataEnd] = walker.dataRange;
  if (offset < dataStart || offset >= dataEnd) throw refuse(`byte ${offset}, outside the records, differs from ${target.fileName}`);
  const [before, after] = await span(walker.start, walker.end);
  if (!acceptsRedaction(before, after)) throw refuse(`the record at byte ${walker.start} differs from ${target.fileName} by more than a redaction`);
  // The node reads metadata to decide access and retention: it is never redacted.
  const key = peekEventKey(before, 0);
  if (key && key.streamName.startsWith(METADATA_STREAM_PREFIX)) {
    throw refuse(`the record at byte ${walker.start} is metadata of a stream (${key.eventNumber}@${key.streamName}), which cannot be redacted`);
  }
  return walker.end;
}

/** What checking a copy's contents found: the file it was, and the MD5 of its bytes before the hash. */
export interface CheckedCopy {
  copyPath: string;
  target: Chunk;
  device: number;
  inode: number;
  size: number;
  digest: Buffer;
}

export interface CopyToCheck {
  copyPath: string;
  target: Chunk;
}

/** The most copies one check takes: they are hashed side by side, one per lane. */
export const COPIES_CHECKED_AT_ONCE = Md5Lanes.lanes;

const refusalOf = (copyPath: string) => (why: string) => Errors.storageReplacementInvalid.create(copyPath, why);

/** One copy and its target, compared block by block; the copy's blocks are read into a lane of the hash. */
class CopyComparison {
  failure: Error | undefined;
  private readonly originals = [Buffer.allocUnsafe(BLOCK_BYTES), Buffer.allocUnsafe(BLOCK_BYTES)];
  private readonly walker: RecordWalker;
  private readonly refuse: (why: string) => Error;

  private constructor(
    readonly copyPath: string, readonly target: Chunk, readonly original: FileHandle, readonly copy: FileHandle,
    readonly identity: { device: number; inode: number; size: number }, private readonly syncing: Promise<void>,
  ) {
    this.refuse = refusalOf(copyPath);
    this.walker = new RecordWalker(CHUNK_HEADER_BYTES, CHUNK_HEADER_BYTES + target.dataSize);
  }

  /**
   * Opens both files and has the copy fsynced once `syncAfter` settles: the disk writes it back
   * while it is read. One fsync at a time: each holds a thread of the pool for as long as the
   * disk takes, and the check's reads need the others.
   */
  static async open({ copyPath, target }: CopyToCheck, syncAfter: Promise<unknown>): Promise<CopyComparison> {
    const refuse = refusalOf(copyPath);
    // O_NOFOLLOW: a copy replaced by a symbolic link after the name was checked is refused (ELOOP), not followed.
    const copy = await fileSystem.open(copyPath, constants.O_RDWR | constants.O_NOFOLLOW).catch((error: NodeJS.ErrnoException) => {
      throw refuse(error.code === 'ELOOP' ? 'it is a symbolic link; the copy must be a regular file' : `it cannot be opened (${error.code ?? error.message})`);
    });
    let original: FileHandle | undefined;
    try {
      original = await fileSystem.open(target.path, 'r');
      const [originalStat, copyStat] = await Promise.all([original.stat(), copy.stat()]);
      if (!copyStat.isFile()) throw refuse('it is not a regular file');
      if (originalStat.size !== copyStat.size) throw refuse(`it is ${copyStat.size} bytes, ${target.fileName} ${originalStat.size}`);
      const syncing = syncAfter.then(() => copy.sync()).catch((error: unknown) => {
        throw Errors.storageIo.create(copyPath, 'fsync', String(error));
      });
      syncing.catch(() => undefined);
      return new CopyComparison(copyPath, target, original, copy, { device: copyStat.dev, inode: copyStat.ino, size: copyStat.size }, syncing);
    } catch (error) {
      await Promise.all([copy.close(), original?.close()]);
      throw error;
    }
  }

  /** Settles when the copy's fsync has ended, however it ended. */
  get synced(): Promise<unknown> {
    return this.syncing.catch(() => undefined);
  }

  get hashedEnd(): number {
    return this.identity.size - CHUNK_HASH_BYTES;
  }

  lengthAt(position: number): number {
    return this.failure ? 0 : Math.max(0, Math.min(BLOCK_BYTES, this.hashedEnd - position));
  }

  async read(position: number, slot: number, copyBlock: Buffer): Promise<void> {
    const length = this.lengthAt(position);
    if (length === 0) return;
    const reads = await Promise.all([this.original.read(this.originals[slot], 0, length, position), this.copy.read(copyBlock, 0, length, position)]);
    if (reads.some(({ bytesRead }) => bytesRead !== length)) throw this.refuse(`a file ended early at byte ${position}`);
  }

  /** Compares the blocks at `position` (already read into `slot` and `copyBlock`). */
  async compare(position: number, slot: number, copyBlock: Buffer): Promise<void> {
    const length = this.lengthAt(position);
    const a = this.originals[slot];
    const b = copyBlock;
    const inBlock = (start: number, end: number) => start >= position && end <= position + length;
    const lengthAt = (offset: number) => inBlock(offset, offset + 4) ? a.readUInt32LE(offset - position) : undefined;
    const readLength = async (offset: number) => (await readAt(this.original, 4, offset)).readUInt32LE(0);
    const span: SpanReader = async (start, end) => inBlock(start, end)
      ? [a.subarray(start - position, end - position), b.subarray(start - position, end - position)]
      : Promise.all([readAt(this.original, end - start, start), readAt(this.copy, end - start, start)]);
    for (let at = firstDifference(a, b, 0, length); at >= 0; at = firstDifference(a, b, at, length)) {
      await this.walker.advance(position + at, lengthAt, readLength, this.refuse);
      at = (await checkDifferingRecord(position + at, this.walker, span, this.target, this.refuse)) - position;
    }
    // Keep the walker in step with the blocks read, so that it never reads lengths one by one.
    await this.walker.advance(position + length - 1, lengthAt, readLength, this.refuse);
  }

  /** Waits for the fsync and closes both files; a failed fsync refuses the copy. */
  async finish(): Promise<void> {
    try {
      await this.syncing;
    } catch (error) {
      this.failure ??= error as Error;
    } finally {
      await Promise.all([this.original.close(), this.copy.close()]);
    }
  }
}

/**
 * Checks the contents of up to four redacted copies against their targets in one pass, and
 * fsyncs the copies meanwhile. Each result is what the check found, or the coded refusal of that
 * copy. The hash in a copy's footer is not read: the switch compares it with the digest found
 * (replacement-check.ts). `stopped` is asked between blocks; when it answers, the check ends
 * with that error.
 */
export async function checkRedactedCopies(copies: readonly CopyToCheck[], stopped: () => Error | undefined = () => undefined): Promise<Array<CheckedCopy | Error>> {
  if (copies.length > COPIES_CHECKED_AT_ONCE) throw new TypeError(`at most ${COPIES_CHECKED_AT_ONCE} copies are checked at once`);
  let syncs: Promise<unknown> = Promise.resolve();
  const opened = await Promise.allSettled(copies.map((copy) => {
    const opening = CopyComparison.open(copy, syncs);
    syncs = opening.then((comparison) => comparison.synced, () => undefined);
    return opening;
  }));
  const comparisons = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const lanes = new Md5Lanes(BLOCK_BYTES);
  const readAll = (position: number, slot: number) => Promise.all(comparisons.map((comparison, lane) =>
    comparison.read(position, slot, lanes.buffer(lane, slot)).catch((error: unknown) => {
      comparison.failure ??= error as Error;
    })));
  const end = Math.max(0, ...comparisons.map((comparison) => comparison.hashedEnd));
  let next: Promise<unknown> | undefined = readAll(0, 0);
  try {
    for (let position = 0, slot = 0; next && position < end; position += BLOCK_BYTES, slot ^= 1) {
      await next;
      const stop = stopped();
      if (stop) throw stop;
      next = position + BLOCK_BYTES < end ? readAll(position + BLOCK_BYTES, slot ^ 1) : undefined;
      for (const [lane, comparison] of comparisons.entries()) {
        if (comparison.lengthAt(position) > 0) await comparison.compare(position, slot, lanes.buffer(lane, slot)).catch((error: unknown) => {
          comparison.failure ??= error as Error;
        });
      }
      lanes.update(slot, comparisons.map((comparison) => comparison.lengthAt(position)));
    }
  } finally {
    await next;
    await Promise.all(comparisons.map((comparison) => comparison.finish()));
  }
  return opened.map((result) => {
    if (result.status === 'rejected') return result.reason as Error;
    const comparison = result.value;
    if (comparison.failure) return comparison.failure;
    return { copyPath: comparison.copyPath, target: comparison.target, ...comparison.identity, digest: lanes.digest(comparisons.indexOf(comparison)) };
  });
}
