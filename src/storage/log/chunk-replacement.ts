/**
 * Checks a rewritten chunk against the chunks it would replace, before anything is switched: it
 * must be a completed chunk over exactly a range of completed chunks, its hash must hold, every
 * record must pass its checksum, sit at the log position it had, and be accepted as standing for
 * the original record there (by default: the very same bytes), and its logical data must end
 * where the range's did. Records may be missing (a scavenge removes some); none may be new.
 */
import { Errors } from '../../common/errors.js';
import type { Chunk, FrameLocation } from './chunk.js';
import type { ChunkHeader } from './chunk-format.js';
import { readInt64 } from './int64.js';

/** Where a record's log position lies in its frame (after the length, checksum, kind and version). */
const RECORD_POSITION_OFFSET = 4 + 6;

/** The steps of a replacement, in order; `onStep` hears each once it is done. */
export type ReplacementStep = 'validated' | 'renamed' | 'switched' | 'removed';

export interface ReplaceOptions {
  /** Whether `replacement` may stand for `original` (whole frames); by default only identical bytes. */
  accepts?: (original: Buffer, replacement: Buffer) => boolean;
  /** Hears each step once it is done. */
  onStep?: (step: ReplacementStep) => void | Promise<void>;
  /**
   * Replaces the record-by-record check below with another that returns the chunks replaced or
   * throws the coded refusal (a redacted copy is checked against its one chunk in a single pass).
   */
  validate?: (candidate: Chunk, range: ReplacedRange) => Promise<Chunk[]>;
  /**
   * Keeps the replaced files (renamed out of the chunk names) until the log is told to delete
   * them, for switches that follow each other at once: deleting a large file makes the file
   * system's next fsyncs wait, the following switches' among them.
   */
  deleteReplacedLater?: boolean;
}

/** The chunks being replaced, as the log holds them. */
export interface ReplacedRange {
  chunkSize: number;
  /** The chunk that holds chunk number `n` now. */
  chunkAt(n: number): Chunk | undefined;
}

// What the log hands a rewrite (TransactionLog.rewriteSource, chunkRange), and what comes back.

export interface RewrittenRecord {
  /** The record's offset in the new chunk's logical space (its log position − the chunk's start). */
  logical: number;
  /** The whole frame, length prefix and suffix included. */
  frame: Buffer;
}

/** The completed chunks a rewrite reads, with the header and logical size of the range. */
export interface RewriteSource {
  header: ChunkHeader;
  logicalDataSize: number;
  /** The chunk files, oldest first (a merged file once). */
  chunks: Chunk[];
  chunkSize: number;
}

function frameBytes(frame: FrameLocation): Buffer {
  return frame.buffer.subarray(frame.offset, frame.offset + frame.framedLength);
}

const sameBytes = (original: Buffer, replacement: Buffer) => original.equals(replacement);

/** Returns the chunks the candidate replaces (oldest first), or throws the coded refusal. */
export async function validateReplacement(candidate: Chunk, range: ReplacedRange, options: ReplaceOptions): Promise<Chunk[]> {
  const refuse = (why: string) => Errors.storageReplacementInvalid.create(candidate.path, why);
  const { replaced, start } = checkShape(candidate, range, refuse);
  // The hash is checked on the hashing thread while the records are checked here; a wrong hash
  // is still the refusal given first.
  const hashHolds = candidate.verifyHashInThread();
  hashHolds.catch(() => undefined);
  let recordsRefused: Error | undefined;
  try {
    checkRecords(candidate, replaced, range, start, options.accepts ?? sameBytes, refuse);
  } catch (error) {
    recordsRefused = error as Error;
  }
  if (!(await hashHolds)) throw refuse('its hash does not match its contents');
  if (recordsRefused) throw recordsRefused;
  return replaced;
}

/** What the writer of an own rewrite proved while writing it (RewrittenChunkWriter). */
export interface WrittenRewrite {
  /** The chunks its records were read from: they must be the chunks it replaces still. */
  from: readonly Chunk[];
  /** The hash of every byte before the footer's hash, each found in the file after it was written. */
  digest: Buffer;
}

/**
 * The check of a chunk the engine rewrote itself from records it had just read and checked
 * (a scavenge, a merge): what could go wrong is the file on its way to the disk, so the file's
 * hash must hold and each record must sit at the log position it names, in order, inside the
 * range. The byte-for-byte comparison with the originals (for copies made elsewhere) is spared:
 * it would read every original chunk a second time. A file whose writer proved its bytes and
 * positions as it wrote them (`written`) needs only its range, the chunks it was read from and
 * its stored hash checked: it is not read again.
 */
export async function validateOwnRewrite(candidate: Chunk, range: ReplacedRange, written?: WrittenRewrite): Promise<Chunk[]> {
  const refuse = (why: string) => Errors.storageReplacementInvalid.create(candidate.path, why);
  const { replaced, start } = checkShape(candidate, range, refuse);
  if (written) {
    if (replaced.length !== written.from.length || replaced.some((chunk, i) => chunk !== written.from[i])) {
      throw refuse('the chunks it was written from were replaced meanwhile');
    }
    if (!(await candidate.storedHash()).equals(written.digest)) throw refuse('its stored hash is not the hash of the bytes written');
    return replaced;
  }
  const hashHolds = candidate.verifyHashInThread();
  hashHolds.catch(() => undefined);
  let previous = -1;
  try {
    for (const found of candidate.records(false)) {
      const position = start + found.logical;
      const recorded = readInt64(found.buffer, found.offset + RECORD_POSITION_OFFSET);
      if (recorded !== position || position <= previous) throw refuse(`the record at ${position} says it was written at ${recorded}`);
      previous = position;
    }
  } catch (error) {
    await hashHolds.catch(() => undefined);
    if (Errors.storageReplacementInvalid.is(error)) throw error;
    throw refuse(`a record is damaged: ${(error as Error).message}`);
  }
  if (!(await hashHolds)) throw refuse('its hash does not match its contents');
  return replaced;
}

/** Checks that the candidate covers a range of whole completed chunks, up to where their data ends. */
function checkShape(candidate: Chunk, range: ReplacedRange, refuse: (why: string) => Error): { replaced: Chunk[]; start: number } {
  const { startNumber, endNumber } = candidate.header;
  if (!candidate.isCompleted) throw refuse('it is not a completed chunk');
  const first = range.chunkAt(startNumber);
  const last = range.chunkAt(endNumber);
  if (!first || !last || first.header.startNumber !== startNumber || last.header.endNumber !== endNumber) {
    throw refuse(`chunks ${startNumber}-${endNumber} are not a range of whole chunks of the log`);
  }
  const replaced: Chunk[] = [];
  for (let n = startNumber; n <= endNumber; n++) {
    const chunk = range.chunkAt(n)!;
    if (!chunk.isCompleted) throw refuse(`chunk ${n} is not completed`);
    if (!replaced.includes(chunk)) replaced.push(chunk);
  }
  const start = startNumber * range.chunkSize;
  const end = last.chunkNumber * range.chunkSize + last.logicalSize;
  if (start + candidate.logicalSize !== end) throw refuse(`its data ends at ${start + candidate.logicalSize}, the chunks' at ${end}`);
  return { replaced, start };
}

/** The records of the replaced chunks in log order, with their log positions. */
function* originalFrames(replaced: readonly Chunk[], chunkSize: number): Generator<{ position: number; bytes: Buffer }, void, undefined> {
  for (const chunk of replaced) {
    const chunkStart = chunk.chunkNumber * chunkSize;
    // Not checksummed here: each is compared byte for byte with a candidate record that is.
    for (const found of chunk.records(false)) yield { position: chunkStart + found.logical, bytes: frameBytes(found) };
  }
}

/**
 * Walks the candidate's records and the originals side by side (both in log order, read in
 * large blocks): each candidate record must stand where an original record started, for it.
 */
function checkRecords(
  candidate: Chunk, replaced: readonly Chunk[], range: ReplacedRange, start: number, accepts: NonNullable<ReplaceOptions['accepts']>,
  refuse: (why: string) => Error,
): void {
  const originals = originalFrames(replaced, range.chunkSize);
  let original = originals.next();
  const records = candidate.records();
  for (;;) {
    let found;
    try {
      found = records.next();
    } catch (error) {
      throw refuse(`a record is damaged: ${(error as Error).message}`);
    }
    if (found.done) return;
    const position = start + found.value.logical;
    const recorded = readInt64(found.value.buffer, found.value.offset + RECORD_POSITION_OFFSET);
    if (recorded !== position) throw refuse(`the record at ${position} says it was written at ${recorded}`);
    while (!original.done && original.value.position < position) original = originals.next();
    if (original.done || original.value.position !== position) throw refuse(`no record of the original chunks starts at ${position}`);
    if (!accepts(original.value.bytes, frameBytes(found.value))) throw refuse(`the record at ${position} differs from the original`);
  }
}
