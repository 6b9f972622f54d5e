/**
 * The one check of a replacement chunk, made before anything is switched, for scavenge and
 * redaction alike. Every candidate must be a completed chunk over exactly a range of whole,
 * completed chunks of the log, its logical data ending where theirs did, and its hash must hold.
 * What proves its records depends on where it came from (ReplacementSource):
 *
 * - `copy`, a chunk written outside the engine: every record passes its checksum, sits at the log
 *   position it had and is accepted as standing for the original record there (by default: the
 *   very same bytes). Records may be missing (a scavenge removes some); none may be new.
 * - `rewrite`, a chunk the engine rewrote itself from records it had just read and checked (a
 *   scavenge, a merge): what could go wrong is the file on its way to the disk, so each record
 *   must sit at the log position it names, in order. The byte-for-byte comparison is spared: it
 *   would read every original chunk a second time. A file whose writer proved its bytes as it
 *   wrote them (`written`, RewrittenChunkWriter) is not read again: the chunks it was read from
 *   must still be the ones it replaces, and its stored hash the one written.
 * - `redaction`, a redacted copy of one chunk (`target`, still the file the log holds for it):
 *   the same size, every byte the same but redacted event data (redacted-chunk-check.ts),
 *   checked now or before its hash was written (`checked`: then the file must be the one
 *   checked). The copy is durable when the check returns.
 */
import { lstat } from 'node:fs/promises';
import { Errors } from '../../common/errors.js';
import type { Chunk, FrameLocation } from '../log/chunk.js';
import type { ReplacedRange, ReplacementValidator } from '../log/chunk-replacement.js';
import { readInt64 } from '../log/int64.js';
import { FRAME_LOG_POSITION_OFFSET } from '../log/record.js';
import { checkRedactedCopies, type CheckedCopy } from './redacted-chunk-check.js';

/** What the writer of an own rewrite proved while writing it (RewrittenChunkWriter). */
export interface WrittenRewrite {
  /** The chunks its records were read from: they must be the chunks it replaces still. */
  from: readonly Chunk[];
  /** The hash of every byte before the footer's hash, each found in the file after it was written. */
  digest: Buffer;
}

/** Where a replacement chunk came from, which says what proves its records (see above). */
export type ReplacementSource =
  | { kind: 'copy'; accepts?: (original: Buffer, replacement: Buffer) => boolean }
  | { kind: 'rewrite'; written?: WrittenRewrite }
  | { kind: 'redaction'; target: Chunk; checked?: CheckedCopy };

type Refuse = (why: string) => Error;

/** Returns the chunks the candidate replaces (oldest first), or throws SVCDB_ERR_STORAGE_REPLACEMENT_INVALID. */
export async function validateReplacement(candidate: Chunk, range: ReplacedRange, source: ReplacementSource): Promise<Chunk[]> {
  const refuse: Refuse = (why) => Errors.storageReplacementInvalid.create(candidate.path, why);
  const { replaced, start } = checkShape(candidate, range, refuse);
  if (source.kind === 'redaction') {
    await checkRedaction(candidate, replaced, source.target, source.checked, refuse);
  } else if (source.kind === 'rewrite' && source.written) {
    await checkAsWritten(candidate, replaced, source.written, refuse);
  } else if (source.kind === 'rewrite') {
    await checkRecordsAndHash(candidate, refuse, () => checkPositions(candidate, start, refuse));
  } else {
    await checkRecordsAndHash(candidate, refuse, () => checkRecords(candidate, replaced, range, start, source.accepts ?? sameBytes, refuse));
  }
  return replaced;
}

/** The validator TransactionLog.replaceChunks takes, for a replacement from `source`. */
export function replacementValidator(source: ReplacementSource): ReplacementValidator {
  return (candidate, range) => validateReplacement(candidate, range, source);
}

/** Checks that the candidate covers a range of whole completed chunks, up to where their data ends. */
function checkShape(candidate: Chunk, range: ReplacedRange, refuse: Refuse): { replaced: Chunk[]; start: number } {
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

/**
 * Checks the records (`checkRecords`) while the hashing thread checks the file's hash; a wrong
 * hash is the refusal given first.
 */
async function checkRecordsAndHash(candidate: Chunk, refuse: Refuse, checkRecords: () => void): Promise<void> {
  const hashHolds = candidate.verifyHashInThread();
  hashHolds.catch(() => undefined);
  let recordsRefused: Error | undefined;
  try {
    checkRecords();
  } catch (error) {
    recordsRefused = Errors.storageReplacementInvalid.is(error) ? error : refuse(`a record is damaged: ${(error as Error).message}`);
  }
  if (!(await hashHolds)) throw refuse('its hash does not match its contents');
  if (recordsRefused) throw recordsRefused;
}

function recordedPosition(found: FrameLocation): number {
  return readInt64(found.buffer, found.offset + FRAME_LOG_POSITION_OFFSET);
}

/** An own rewrite: each record sits at the log position it names, in order. */
function checkPositions(candidate: Chunk, start: number, refuse: Refuse): void {
  let previous = -1;
  for (const found of candidate.records(false)) {
    const position = start + found.logical;
    const recorded = recordedPosition(found);
    if (recorded !== position || position <= previous) throw refuse(`the record at ${position} says it was written at ${recorded}`);
    previous = position;
  }
}

/** An own rewrite its writer proved: read from the chunks it replaces, with the hash written. */
async function checkAsWritten(candidate: Chunk, replaced: readonly Chunk[], written: WrittenRewrite, refuse: Refuse): Promise<void> {
  if (replaced.length !== written.from.length || replaced.some((chunk, i) => chunk !== written.from[i])) {
    throw refuse('the chunks it was written from were replaced meanwhile');
  }
  if (!(await candidate.storedHash()).equals(written.digest)) throw refuse('its stored hash is not the hash of the bytes written');
}

function frameBytes(frame: FrameLocation): Buffer {
  return frame.buffer.subarray(frame.offset, frame.offset + frame.framedLength);
}

const sameBytes = (original: Buffer, replacement: Buffer) => original.equals(replacement);

/** The records of the replaced chunks in log order, with their log positions. */
function* originalFrames(replaced: readonly Chunk[], chunkSize: number): Generator<{ position: number; bytes: Buffer }, void, undefined> {
  for (const chunk of replaced) {
    const chunkStart = chunk.chunkNumber * chunkSize;
    // Not checksummed here: each is compared byte for byte with a candidate record that is.
    for (const found of chunk.records(false)) yield { position: chunkStart + found.logical, bytes: frameBytes(found) };
  }
}

/**
 * A copy: walks the candidate's records and the originals side by side (both in log order, read
 * in large blocks): each candidate record must stand where an original record started, for it.
 */
function checkRecords(
  candidate: Chunk, replaced: readonly Chunk[], range: ReplacedRange, start: number, accepts: (original: Buffer, replacement: Buffer) => boolean,
  refuse: Refuse,
): void {
  const originals = originalFrames(replaced, range.chunkSize);
  let original = originals.next();
  for (const found of candidate.records()) {
    const position = start + found.logical;
    const recorded = recordedPosition(found);
    if (recorded !== position) throw refuse(`the record at ${position} says it was written at ${recorded}`);
    while (!original.done && original.value.position < position) original = originals.next();
    if (original.done || original.value.position !== position) throw refuse(`no record of the original chunks starts at ${position}`);
    if (!accepts(original.value.bytes, frameBytes(found))) throw refuse(`the record at ${position} differs from the original`);
  }
}

/**
 * A redacted copy of `target`: it replaces exactly the target, which the log still holds, with
 * the same data size; its contents are checked now or were (`checked`, then the file must be the
 * one checked), and the hash in its footer is the MD5 of those contents.
 */
async function checkRedaction(candidate: Chunk, replaced: readonly Chunk[], target: Chunk, checked: CheckedCopy | undefined, refuse: Refuse): Promise<void> {
  const { startNumber, endNumber } = candidate.header;
  if (target.header.startNumber !== startNumber || target.header.endNumber !== endNumber) {
    throw refuse(`its range ${startNumber}-${endNumber} is not that of ${target.fileName} (${target.header.startNumber}-${target.header.endNumber})`);
  }
  if (replaced.length !== 1 || replaced[0] !== target) throw refuse(`${target.fileName} is no longer the active file for chunk ${startNumber}`);
  if (candidate.dataSize !== target.dataSize) throw refuse(`its data size differs from ${target.fileName}'s`);
  const found = checked ?? (await checkRedactedCopies([{ copyPath: candidate.path, target }]))[0];
  if (found instanceof Error) throw found;
  if (found.target !== target || found.copyPath !== candidate.path) throw refuse(`it was checked as a copy of ${found.target.fileName}, not of ${target.fileName}`);
  // lstat: the name must still be the checked file itself, not a link to it.
  const now = await lstat(candidate.path);
  if (now.dev !== found.device || now.ino !== found.inode || now.size !== found.size) throw refuse('it is not the file that was checked: it was replaced or its size changed');
  // The redactor may have written the hash after the check's fsync: an fdatasync makes it durable.
  await candidate.sync();
  if (!(await candidate.storedHash()).equals(found.digest)) throw refuse('its hash does not match its contents');
}
