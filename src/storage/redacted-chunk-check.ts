/**
 * Checks a redacted copy of a chunk against the chunk it would replace, in one pass over both
 * files: the same size and range, every byte the same except inside event records that
 * acceptsRedaction allows (data as 0xFF, IsRedacted set, checksum recomputed), and an MD5 in its
 * footer that matches its contents. Comparing whole blocks natively and decoding only the
 * records that differ keeps it near the speed of reading the two files.
 */
import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { Errors } from '../common/errors.js';
import { CHUNK_HEADER_BYTES } from './chunk-format.js';
import type { Chunk } from './chunk.js';
import type { ReplacedRange } from './chunk-replacement.js';
import { decodeRecord, RecordKind } from './record.js';
import { acceptsRedaction } from './redaction.js';
import { METADATA_STREAM_PREFIX } from './stream-metadata.js';

const BLOCK_BYTES = 4 * 1024 * 1024;
const HASH_BYTES = 16;
/** Below this many bytes a differing span is searched byte by byte. */
const LINEAR_SEARCH_BYTES = 64;

/** Spans compared at once when looking for a difference: each is compared once, however many differ. */
const WINDOW_BYTES = 64 * 1024;

/** The index of the first byte in from..to where `a` and `b` differ, or -1. */
export function firstDifference(a: Buffer, b: Buffer, from: number, to: number): number {
  for (let start = from; start < to; start += WINDOW_BYTES) {
    const end = Math.min(to, start + WINDOW_BYTES);
    if (!a.subarray(start, end).equals(b.subarray(start, end))) return differenceWithin(a, b, start, end);
  }
  return -1;
}

/** The first differing index in a span known to differ, by halving it. */
function differenceWithin(a: Buffer, b: Buffer, from: number, to: number): number {
  let low = from;
  let high = to;
  while (high - low > LINEAR_SEARCH_BYTES) {
    const middle = (low + high) >>> 1;
    if (a.subarray(low, middle).equals(b.subarray(low, middle))) low = middle;
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

  /** Advances to the record that holds file offset `at` (or past every record ending by it). */
  async advance(at: number, lengthAt: (offset: number) => Promise<number>, refuse: (why: string) => Error): Promise<void> {
    while (this.end <= at && this.end < this.dataEnd) {
      this.start = this.end;
      const framed = (await lengthAt(this.start)) + 8;
      if (this.start + framed > this.dataEnd) throw refuse(`the target's record at byte ${this.start} runs past its data`);
      this.end = this.start + framed;
    }
  }

  get dataRange(): [number, number] {
    return [this.dataStart, this.dataEnd];
  }
}

/**
 * The validator of a redacted copy of `target`; plugged into TransactionLog.replaceChunks as
 * `validate`. The copy must cover exactly the target's range, and the target must still be the
 * file the log holds for it.
 */
export async function validateRedactedChunk(candidate: Chunk, range: ReplacedRange, target: Chunk): Promise<Chunk[]> {
  const refuse = (why: string) => Errors.storageReplacementInvalid.create(candidate.path, why);
  const { startNumber, endNumber } = candidate.header;
  if (!candidate.isCompleted) throw refuse('it is not a completed chunk');
  if (target.header.startNumber !== startNumber || target.header.endNumber !== endNumber) {
    throw refuse(`its range ${startNumber}-${endNumber} is not that of ${target.fileName} (${target.header.startNumber}-${target.header.endNumber})`);
  }
  if (range.chunkAt(startNumber) !== target) throw refuse(`${target.fileName} is no longer the active file for chunk ${startNumber}`);
  if (!target.isCompleted) throw refuse(`chunk ${startNumber} is not completed`);
  if (candidate.dataSize !== target.dataSize || candidate.logicalSize !== target.logicalSize) {
    throw refuse(`its data size differs from ${target.fileName}'s`);
  }
  const [original, copy] = await Promise.all([open(target.path, 'r'), open(candidate.path, 'r')]);
  try {
    await compareFiles(original, copy, target, refuse);
  } finally {
    await Promise.all([original.close(), copy.close()]);
  }
  return [target];
}

async function compareFiles(original: FileHandle, copy: FileHandle, target: Chunk, refuse: (why: string) => Error): Promise<void> {
  const [originalStat, copyStat] = await Promise.all([original.stat(), copy.stat()]);
  if (originalStat.size !== copyStat.size) throw refuse(`it is ${copyStat.size} bytes, ${target.fileName} ${originalStat.size}`);
  const hashedEnd = copyStat.size - HASH_BYTES;
  const walker = new RecordWalker(CHUNK_HEADER_BYTES, CHUNK_HEADER_BYTES + target.dataSize);
  const hash = createHash('md5');
  // Two pairs of blocks: the next pair is read while this one is hashed and compared.
  const pairs = [0, 1].map(() => [Buffer.allocUnsafe(BLOCK_BYTES), Buffer.allocUnsafe(BLOCK_BYTES)] as const);
  const lengthFrom = (position: number) => Math.min(BLOCK_BYTES, hashedEnd - position);
  const readPair = async (index: number, position: number): Promise<void> => {
    const length = lengthFrom(position);
    const [a, b] = pairs[index];
    const reads = await Promise.all([original.read(a, 0, length, position), copy.read(b, 0, length, position)]);
    if (reads.some(({ bytesRead }) => bytesRead !== length)) throw refuse(`a file ended early at byte ${position}`);
  };
  let next = hashedEnd > 0 ? readPair(0, 0) : undefined;
  for (let position = 0, index = 0; next; position += BLOCK_BYTES, index ^= 1) {
    await next;
    const following = position + BLOCK_BYTES;
    next = following < hashedEnd ? readPair(index ^ 1, following) : undefined;
    // A refusal below must not leave the read in flight unobserved.
    next?.catch(() => undefined);
    const length = lengthFrom(position);
    const [a, b] = pairs[index];
    hash.update(b.subarray(0, length));
    const lengthAt = async (offset: number) => offset >= position && offset + 4 <= position + length
      ? a.readUInt32LE(offset - position)
      : (await readAt(original, 4, offset)).readUInt32LE(0);
    let from = 0;
    for (let at = firstDifference(a, b, from, length); at >= 0; at = firstDifference(a, b, from, length)) {
      const offset = position + at;
      const [dataStart, dataEnd] = walker.dataRange;
      if (offset < dataStart || offset >= dataEnd) throw refuse(`byte ${offset}, outside the records, differs from ${target.fileName}`);
      await walker.advance(offset, lengthAt, refuse);
      const framed = walker.end - walker.start;
      const [before, after] = await Promise.all([readAt(original, framed, walker.start), readAt(copy, framed, walker.start)]);
      if (!acceptsRedaction(before, after)) throw refuse(`the record at byte ${walker.start} differs from ${target.fileName} by more than a redaction`);
      // The node reads metadata to decide access and retention: it is never redacted.
      const record = decodeRecord(before, 0);
      if (record.kind === RecordKind.event && record.streamName.startsWith(METADATA_STREAM_PREFIX)) {
        throw refuse(`the record at byte ${walker.start} is metadata of a stream (${record.eventNumber}@${record.streamName}), which cannot be redacted`);
      }
      from = walker.end - position;
    }
    // Keep the walker in step with the blocks read, so that it never reads lengths one by one.
    await walker.advance(position + length - 1, lengthAt, refuse);
  }
  const stored = await readAt(copy, HASH_BYTES, hashedEnd);
  if (!hash.digest().equals(stored)) throw refuse('its hash does not match its contents');
}
