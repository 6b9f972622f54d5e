/**
 * Checks a rewritten chunk against the chunks it would replace, before anything is switched: it
 * must be a completed chunk over exactly a range of completed chunks, its hash must hold, every
 * record must pass its checksum, sit at the log position it had, and be accepted as standing for
 * the original record there (by default: the very same bytes), and its logical data must end
 * where the range's did. Records may be missing (a scavenge removes some); none may be new.
 */
import { Errors } from '../common/errors.js';
import type { Chunk, ChunkRecord } from './chunk.js';
import { decodeRecord } from './record.js';

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
}

/** The chunks being replaced, as the log holds them. */
export interface ReplacedRange {
  chunkSize: number;
  /** The chunk that holds chunk number `n` now. */
  chunkAt(n: number): Chunk | undefined;
}

const sameBytes = (original: Buffer, replacement: Buffer) => original.equals(replacement);

/** Returns the chunks the candidate replaces (oldest first), or throws the coded refusal. */
export async function validateReplacement(candidate: Chunk, range: ReplacedRange, options: ReplaceOptions): Promise<Chunk[]> {
  const refuse = (why: string) => Errors.storageReplacementInvalid.create(candidate.path, why);
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

function checkRecords(
  candidate: Chunk, replaced: readonly Chunk[], range: ReplacedRange, start: number, accepts: NonNullable<ReplaceOptions['accepts']>, refuse: (why: string) => Error,
): void {
  const originals = originalFrames(replaced, range, refuse);
  for (const { local, frame } of recordsOf(candidate, 'its', refuse)) {
    const position = start + local;
    const record = decodeRecord(frame, 0);
    if (record.logPosition !== position) throw refuse(`the record at ${position} says it was written at ${record.logPosition}`);
    const original = originals.get(position);
    if (!original) throw refuse(`no record of the original chunks starts at ${position}`);
    if (!accepts(original, frame)) throw refuse(`the record at ${position} differs from the original`);
  }
}

/** Every record of `chunk`, each read in one pass over its file and checked, or the refusal. */
function recordsOf(chunk: Chunk, whose: string, refuse: (why: string) => Error): ChunkRecord[] {
  try {
    return chunk.allRecords();
  } catch (error) {
    if (Errors.storageCorrupt.is(error) || Errors.storageChecksum.is(error)) throw refuse(`${whose} records are damaged: ${(error as Error).message}`);
    throw error;
  }
}

/** The frames of the chunks replaced, by log position. */
function originalFrames(replaced: readonly Chunk[], range: ReplacedRange, refuse: (why: string) => Error): Map<number, Buffer> {
  const frames = new Map<number, Buffer>();
  for (const chunk of replaced) {
    const start = chunk.chunkNumber * range.chunkSize;
    for (const { local, frame } of recordsOf(chunk, `${chunk.fileName}'s`, refuse)) frames.set(start + local, frame);
  }
  return frames;
}
