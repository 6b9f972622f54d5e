import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Errors } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { Chunk, type FrameLocation } from './chunk.js';
import { chunkFileName, isReplacedChunkFile, isTempFile, parseChunkFileName, replacedChunkFileName } from '../layout.js';
import type { ChunkHeader } from './chunk-format.js';
import type { ReplaceOptions, ReplacementValidator, RewriteSource, RewrittenRecord } from './chunk-replacement.js';
import { fsyncDirectory, fsyncDirectorySync } from '../disk/durable-file.js';
import { decodeRecord, decodeRecordOnDemand, type LogRecord } from './record.js';
import { ReadCounters } from './meters.js';
import { soundEnd } from './log-end.js';
import { fileSystem } from '../disk/file-system.js';

/** The log cannot address more chunks than this (the chunk number is part of file names). */
export const CHUNK_COUNT_MAX = 400_000;

export interface LogOpenOptions {
  dbPath: string;
  chunkSizeBytes: number;
  /** Completed chunks whose bytes stay in memory after completion, newest first. */
  cachedChunksMax: number;
  logger: Logger;
}

/** A record read on from a position, or only where reading goes on when records were passed over. */
/** Read beyond the bytes a bounded walk may visit, so that the record that ends it is read along. */
const SCAN_SLACK_BYTES = 256 * 1024;

export interface SkippingRecord {
  record?: LogRecord;
  nextPosition: number;
  /** Records passed over before it. */
  skipped: number;
}

export interface PositionedRecord {
  record: LogRecord;
  /** Where the record starts; its position in the log. */
  position: number;
  /** Where the next record would start (skips the free space at the end of a chunk). */
  nextPosition: number;
}

/**
 * The transaction log: an array of chunks addressed by log position
 * (chunkNumber × chunkSize + offset in the chunk). It owns the chunk files; the writer appends
 * through it and readers read up to `readableEnd`, the end of what is durable and published.
 */
/** A 32-bit FNV-1a hash of the rewritten chunk files' numbers and versions; 0 when there are none. */
function epochOf(chunks: Iterable<Chunk | undefined>): number {
  let hash = 0x811c9dc5;
  let rewritten = 0;
  for (const chunk of chunks) {
    const version = chunk ? parseChunkFileName(chunk.fileName)?.version ?? 0 : 0;
    if (!chunk || version === 0) continue;
    rewritten++;
    const text = `${chunk.chunkNumber}.${version};`;
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  }
  // 0 stands for "no chunk rewritten", so a hash of 0 becomes 1.
  return rewritten === 0 ? 0 : (hash >>> 0) || 1;
}

const replacedPath = (chunk: Chunk) => join(dirname(chunk.path), replacedChunkFileName(chunk.fileName));

export class TransactionLog {
  private readonly chunks: Chunk[] = [];
  /** The chunk made for the writer to move on to, kept when completing the current one failed. */
  private nextChunk: Chunk | undefined;
  private replacements = 0;
  /** Replaced chunk files (renamed) to delete, and their deletion under way (deleteReplacedFiles). */
  private readonly replacedFiles: string[] = [];
  private deletions: Promise<void> = Promise.resolve();
  private epoch = 0;
  /** The replacement count `epoch` was computed at; -1: not yet. */
  private epochAtReplacements = -1;
  private writeEnd = 0;
  private published = 0;
  /** Where record reads were served from, for /stats. */
  readonly reads = new ReadCounters();

  private constructor(private readonly options: LogOpenOptions) {}

  get chunkSize(): number {
    return this.options.chunkSizeBytes;
  }

  /** Where the next record will be written. */
  get writerPosition(): number {
    return this.writeEnd;
  }

  /** Everything below this is durable and visible to readers. */
  get readableEnd(): number {
    return this.published;
  }

  get chunkCount(): number {
    return this.chunks.length;
  }

  chunkFiles(): string[] {
    return this.chunks.map((chunk) => chunk.path);
  }

  /**
   * Opens the chunks and positions the writer at the end of the log: `writerCheckpoint`, or the
   * last whole write of sound records past it in its chunk (log-end.ts). Chunks or bytes past
   * that end were never acknowledged and are discarded; the records before it in the ongoing
   * chunk are walked and checked, so a torn or corrupt acknowledged record stops the start.
   */
  static async open(options: LogOpenOptions, writerCheckpoint: number): Promise<TransactionLog> {
    const log = new TransactionLog(options);
    try {
      await log.openChunks(writerCheckpoint);
      await log.positionWriter(writerCheckpoint);
    } catch (error) {
      // A corrupt chunk past the first, say: the chunks opened before it are closed.
      await log.close().catch(() => undefined);
      throw error;
    }
    return log;
  }

  private chunkNumberOf(position: number): number {
    return Math.floor(position / this.chunkSize);
  }

  /**
   * Opens the chunk files in order. A file that starts past the chunk holding `writerCheckpoint`
   * holds nothing acknowledged (the writer made it and stopped before writer.chk moved on): it
   * is deleted unread, so a chunk left half made by a full disk never stops a start.
   */
  private async openChunks(writerCheckpoint: number): Promise<void> {
    const { dbPath, chunkSizeBytes } = this.options;
    const lastNumber = this.chunkNumberOf(writerCheckpoint);
    const newest = new Map<number, string>();
    for (const name of readdirSync(dbPath)) {
      if (isTempFile(name) || isReplacedChunkFile(name)) {
        fileSystem.unlinkSync(join(dbPath, name));
        continue;
      }
      const parsed = parseChunkFileName(name);
      if (!parsed) continue;
      if (parsed.chunkNumber > lastNumber) {
        this.options.logger.warn({ chunk: name, writerCheckpoint }, 'deleted a chunk past the writer checkpoint: it held nothing acknowledged');
        fileSystem.unlinkSync(join(dbPath, name));
        continue;
      }
      const previous = newest.get(parsed.chunkNumber);
      if (previous && previous > name) {
        fileSystem.unlinkSync(join(dbPath, name));
      } else {
        if (previous) fileSystem.unlinkSync(join(dbPath, previous));
        newest.set(parsed.chunkNumber, name);
      }
    }
    for (const number of [...newest.keys()].sort((a, b) => a - b)) {
      if (number < this.chunks.length) {
        // A rewritten chunk switched in over several chunks covers this one: its file is stale.
        this.options.logger.warn({ chunk: newest.get(number) }, 'deleted a chunk file that a merged chunk replaced');
        fileSystem.unlinkSync(join(dbPath, newest.get(number)!));
        continue;
      }
      const chunk = await Chunk.open(join(dbPath, newest.get(number)!), chunkSizeBytes);
      const expected = this.chunks.length;
      if (chunk.header.startNumber !== expected) {
        await chunk.close();
        throw Errors.storageCorrupt.create(chunk.path, 0, `chunk starts at number ${chunk.header.startNumber}, expected ${expected}: a chunk file is missing`);
      }
      for (let n = chunk.header.startNumber; n <= chunk.header.endNumber; n++) this.chunks[n] = chunk;
    }
  }

  private async positionWriter(writerCheckpoint: number): Promise<void> {
    const position = await this.pastCompletedChunk(writerCheckpoint);
    const number = this.chunkNumberOf(position);
    const local = position - number * this.chunkSize;
    await this.dropChunksAfter(number);
    if (number > this.chunks.length || (number === this.chunks.length && local !== 0)) {
      throw Errors.storageCheckpoint.create(`writer.chk (${writerCheckpoint}) points past the end of the log (${this.chunks.length} chunks)`);
    }
    for (let n = 0; n < number; n++) {
      if (!this.chunks[n].isCompleted) {
        throw Errors.storageCorrupt.create(this.chunks[n].path, 0, 'an earlier chunk is not completed');
      }
    }
    if (number === this.chunks.length) {
      this.addChunk(await Chunk.create(this.options.dbPath, number, this.chunkSize));
    }
    const chunk = this.chunks[number];
    const end = await soundEnd(chunk, local);
    if (end > local) {
      this.options.logger.warn({ chunk: chunk.path, writerCheckpoint: position, end: position + end - local },
        'writer.chk was behind the log: the whole writes past it are kept');
    }
    await chunk.resumeWriting(end);
    this.checkFrames(chunk, end);
    this.writeEnd = number * this.chunkSize + end;
    this.published = this.writeEnd;
  }

  /**
   * Where the writer goes on from writer.chk `position` when it lies in a completed chunk: the
   * next chunk. writer.chk is flushed after every chunk completion, but a crash of the machine
   * between the two leaves it behind the end of the completed chunk: the chunk is kept whole when
   * its hash holds (its completion was durable), and otherwise cut back to its last sound write
   * and made ongoing again.
   */
  private async pastCompletedChunk(position: number): Promise<number> {
    const chunk = this.chunks[this.chunkNumberOf(position)];
    if (!chunk?.isCompleted) return position;
    const chunkStart = chunk.chunkNumber * this.chunkSize;
    const local = position - chunkStart;
    const next = (chunk.header.endNumber + 1) * this.chunkSize;
    if (local === chunk.logicalSize) return next;
    if (chunk.isMapped || local > chunk.dataSize) {
      throw Errors.storageCheckpoint.create(`writer.chk (${position}) is inside a rewritten chunk or past the data of completed chunk ${chunk.path}`);
    }
    if (await chunk.verifyHash()) {
      this.options.logger.warn({ chunk: chunk.path, writerCheckpoint: position }, 'writer.chk was behind the end of a completed chunk whose hash holds: the chunk is kept whole');
      return next;
    }
    const end = await soundEnd(chunk, local);
    this.options.logger.warn({ chunk: chunk.path, keepBytes: end }, 'reopening a completed chunk whose completion was not durable, after its last sound write');
    chunk.truncateTo(end);
    return chunkStart + end;
  }

  /** Walks the frames of the ongoing chunk up to `end`; every one must be whole and valid. */
  private checkFrames(chunk: Chunk, end: number): void {
    let local = 0;
    while (local < end) local += chunk.frameAt(local, end, true).framedLength;
    if (local !== end) throw Errors.storageCorrupt.create(chunk.path, local, 'writer.chk is not at a record boundary');
  }

  private async dropChunksAfter(number: number): Promise<void> {
    let dropped = false;
    while (this.chunks.length > number + 1) {
      const chunk = this.chunks.pop()!;
      if (this.chunks[this.chunks.length - 1] === chunk) continue;
      await chunk.close();
      fileSystem.unlinkSync(chunk.path);
      this.options.logger.warn({ chunk: chunk.path }, 'deleted a chunk past the writer checkpoint');
      dropped = true;
    }
    if (dropped) fsyncDirectorySync(this.options.dbPath);
  }

  /**
   * Cuts the log back to `position` (truncate.chk): later chunks are deleted, newest first so a
   * crash leaves a contiguous prefix, and the chunk holding the position is made ongoing again.
   * Returns the position the log now ends at.
   */
  static async truncate(options: LogOpenOptions, position: number): Promise<number> {
    const log = new TransactionLog(options);
    await log.openChunks(Infinity);
    const number = log.chunkNumberOf(position);
    const local = position - number * log.chunkSize;
    await log.dropChunksAfter(local === 0 ? number - 1 : number);
    const chunk = log.chunks[number];
    let kept = local;
    if (chunk && local > 0) {
      if (chunk.header.endNumber !== chunk.header.startNumber || chunk.isMapped) {
        throw Errors.storageCorrupt.create(chunk.path, local, 'cannot truncate inside a rewritten chunk');
      }
      // A position in the free tail of a completed chunk keeps all of its data.
      if (chunk.isCompleted) kept = Math.min(local, chunk.dataSize);
      chunk.truncateTo(kept);
    }
    await log.close();
    return Math.min(position, number * log.chunkSize + kept);
  }

  private addChunk(chunk: Chunk): void {
    this.chunks[chunk.chunkNumber] = chunk;
  }

  get currentChunk(): Chunk {
    return this.chunks[this.chunks.length - 1];
  }

  /**
   * Whether `framedBytes` more fit in the current chunk after what it holds now. A chunk's data
   * never reaches its last byte: the writer position would then be the next chunk's start while
   * the chunk is still ongoing, and writer.chk there reads as "this chunk is completed" (to
   * recovery, and to a leader's stream, which would go on to the next chunk without the
   * completion its replicas wait for).
   */
  fits(framedBytes: number): boolean {
    return this.currentChunk.freeBytes > framedBytes;
  }

  /**
   * Completes the ongoing chunk and opens the next; the caller flushes writer.chk after. The next
   * chunk is made first: when that fails (a full disk, no descriptor left) the current chunk is
   * still ongoing, and when completing fails the chunk made is kept for the next attempt.
   */
  async completeCurrentChunk(): Promise<void> {
    const chunk = this.currentChunk;
    const next = chunk.header.endNumber + 1;
    if (next >= CHUNK_COUNT_MAX) throw Errors.storageFull.create(CHUNK_COUNT_MAX);
    this.nextChunk ??= await Chunk.create(this.options.dbPath, next, this.chunkSize);
    await chunk.complete();
    this.addChunk(this.nextChunk);
    this.nextChunk = undefined;
    this.writeEnd = next * this.chunkSize;
    this.trimCache();
  }

  /**
   * Makes the empty ongoing chunk anew from `header`: a replica takes the leader's header for a
   * chunk it begins, so that its copy completes byte for byte as the leader's did.
   */
  async adoptChunkHeader(header: ChunkHeader): Promise<void> {
    const chunk = this.currentChunk;
    if (chunk.dataSize !== 0 || chunk.isCompleted || header.startNumber !== chunk.chunkNumber || header.endNumber !== header.startNumber
      || header.chunkSize !== this.chunkSize) {
      throw new TypeError(`chunk ${header.startNumber} cannot take this header: the ongoing chunk is ${chunk.chunkNumber}, with ${chunk.dataSize} bytes`);
    }
    await chunk.close();
    // The new file is renamed over the name of version 0: the name holds one file or the other.
    const made = await Chunk.create(this.options.dbPath, chunk.chunkNumber, this.chunkSize, header);
    if (made.path !== chunk.path) await fileSystem.unlink(chunk.path);
    this.addChunk(made);
  }

  /**
   * Puts `tempPath`, a completed chunk file copied from a leader (fsynced, in the database
   * directory), in place of the ongoing chunk, which holds a prefix of it or nothing, under the
   * leader's `version`, and opens the chunk after it. The caller moves writer.chk on afterwards:
   * a crash before that leaves a completed chunk past writer.chk, which the next start cuts back.
   */
  async installCompletedChunk(tempPath: string, version: number): Promise<Chunk> {
    const current = this.currentChunk;
    const candidate = await Chunk.open(tempPath, this.chunkSize).catch((error: unknown) => {
      throw Errors.storageReplacementInvalid.create(tempPath, (error as Error).message);
    });
    const { startNumber, endNumber } = candidate.header;
    const completed = candidate.isCompleted;
    await candidate.close();
    if (!completed || startNumber !== current.chunkNumber || current.isCompleted) {
      throw Errors.storageReplacementInvalid.create(tempPath, `a completed chunk starting at ${current.chunkNumber} was expected`);
    }
    const path = join(this.options.dbPath, chunkFileName(startNumber, version));
    await current.close();
    await fileSystem.rename(tempPath, path);
    if (current.path !== path) await fileSystem.unlink(current.path);
    await fsyncDirectory(this.options.dbPath);
    const installed = await Chunk.open(path, this.chunkSize);
    for (let n = startNumber; n <= endNumber; n++) this.chunks[n] = installed;
    this.addChunk(await Chunk.create(this.options.dbPath, endNumber + 1, this.chunkSize));
    this.writeEnd = (endNumber + 1) * this.chunkSize;
    this.replacements++;
    return installed;
  }

  /**
   * Undoes what was appended past `position`, the durable writer checkpoint, after a write that
   * could not be made durable in full (a full disk): those records were never acknowledged.
   * Chunks begun past it are deleted and the chunk holding it is cut back and made ongoing.
   */
  async rollbackTo(position: number): Promise<void> {
    if (position > this.writeEnd || position < this.published) throw new TypeError(`cannot roll the log back to ${position}`);
    if (position === this.writeEnd) {
      // A write that failed part way may have left whole records past the data. Recovery looks
      // for records past writer.chk, so they are wiped before the refusal is answered: a shorter
      // write at the same position must never make them part of the log after a crash.
      this.currentChunk.wipeAfterData();
      return;
    }
    const number = this.chunkNumberOf(position);
    await this.dropChunksAfter(number);
    const chunk = this.chunks[number];
    const local = position - number * this.chunkSize;
    chunk.truncateTo(local);
    await chunk.resumeWriting(local);
    this.writeEnd = position;
    this.options.logger.warn({ chunk: chunk.path, position }, 'rolled the log back to the writer checkpoint');
  }

  private trimCache(): void {
    let cached = 0;
    for (let n = this.chunks.length - 2; n >= 0; n--) {
      const chunk = this.chunks[n];
      if (!chunk.isCached) break;
      chunk.setCached(++cached <= this.options.cachedChunksMax);
    }
  }

  /** Appends framed records at the writer position (which the caller used to encode them). */
  async append(bytes: Buffer): Promise<void> {
    await this.currentChunk.append(bytes);
    this.writeEnd += bytes.length;
  }

  /**
   * Where the writer encodes records in place: the current chunk's memory, from `offset` on.
   * Saves copying every batch from a scratch buffer into the chunk.
   */
  encodeTarget(): { buffer: Buffer; offset: number } {
    const chunk = this.currentChunk;
    return { buffer: chunk.encodeBuffer, offset: chunk.dataSize };
  }

  /** Appends the `length` bytes encoded at encodeTarget(); `onThreadPool` as in Chunk.commitEncoded. */
  async appendEncoded(length: number, onThreadPool = false): Promise<void> {
    await this.currentChunk.commitEncoded(length, onThreadPool);
    this.writeEnd += length;
  }

  async sync(): Promise<void> {
    await this.currentChunk.sync();
  }

  /** Makes everything written so far visible to readers (after it is durable). */
  publish(position: number): void {
    this.published = position;
  }

  /** The frame at `position`, which must be a record start below the readable end. */
  frameAt(position: number): FrameLocation {
    const number = this.chunkNumberOf(position);
    const chunk = this.chunks[number];
    if (!chunk || position >= this.published) throw new RangeError(`position ${position} is not in the readable log`);
    const local = position - chunk.chunkNumber * this.chunkSize;
    if (chunk.isCached) this.reads.recordsFromMemory++;
    else this.reads.recordsFromFile++;
    return chunk.recordAt(local, this.chunkLimit(chunk));
  }

  /** The logical end of what can be read in `chunk`. */
  private chunkLimit(chunk: Chunk): number {
    return chunk.isCompleted ? chunk.logicalSize : this.published - chunk.chunkNumber * this.chunkSize;
  }

  /**
   * Whether a position a client sent is one reads can start from: a record start, the free tail
   * of a chunk, or the ends of the log. Anything else would be read as garbage.
   */
  isBoundary(position: number): boolean {
    if (position <= 0 || position >= this.published) return true;
    const chunk = this.chunks[this.chunkNumberOf(position)];
    const local = position - chunk.chunkNumber * this.chunkSize;
    if (local >= this.chunkLimit(chunk)) return true;
    // A rewritten chunk finds records through its map, never by reading at the position: a
    // page that ended at a record a scavenge then removed continues from the next one.
    if (chunk.isMapped) return true;
    return chunk.isRecordStart(local, this.chunkLimit(chunk));
  }

  readRecord(position: number): LogRecord {
    const frame = this.frameAt(position);
    return decodeRecord(frame.buffer, frame.offset);
  }

  /**
   * Whether the record an index entry points to is still in the log: a scavenge removes records
   * from a chunk before it removes their index entries, and a crash can fall in between.
   */
  isKept(position: number): boolean {
    const chunk = this.chunks[this.chunkNumberOf(position)];
    if (!chunk?.isMapped) return true;
    return chunk.isRecordStart(position - chunk.chunkNumber * this.chunkSize, chunk.logicalSize);
  }

  /** The record at `position`, or undefined when a scavenge removed it. */
  readRecordIfKept(position: number): LogRecord | undefined {
    return this.isKept(position) ? this.readRecord(position) : undefined;
  }

  /** The first record at or after `position` (which is a record start or a chunk's free tail). */
  nextRecord(position: number): PositionedRecord | undefined {
    const found = this.frameFrom(position);
    if (!found.frame) return undefined;
    return { record: decodeRecord(found.frame.buffer, found.frame.offset), position: found.position, nextPosition: found.nextPosition };
  }

  /**
   * Like nextRecord, but the records `skip` accepts (looking at the undecoded frame) are passed
   * over, at most `skipMax` of them; `record` is absent when that many were passed over, or when
   * the readable end came after some were.
   */
  nextRecordSkipping(position: number, skip: (buffer: Buffer, offset: number) => boolean, skipMax: number): SkippingRecord | undefined {
    let skipped = 0;
    let at = position;
    while (at < this.published) {
      const chunk = this.chunks[this.chunkNumberOf(at)];
      const chunkStart = chunk.chunkNumber * this.chunkSize;
      const limit = this.chunkLimit(chunk);
      const memory = chunk.recordMemory;
      let local = at - chunkStart;
      if (memory === undefined || local >= limit) {
        // Frame by frame: from the file, through a rewritten chunk's map, or past a free tail.
        const found = this.frameFrom(at);
        const { frame } = found;
        if (!frame) return skipped > 0 ? { nextPosition: found.position, skipped } : undefined;
        if (!skip(frame.buffer, frame.offset)) return { record: decodeRecord(frame.buffer, frame.offset), nextPosition: found.nextPosition, skipped };
        at = found.nextPosition;
        if (++skipped >= skipMax) return { nextPosition: at, skipped };
        continue;
      }
      // Where the records lie in memory, without an object per record passed over.
      while (local < limit) {
        const next = local + chunk.frameLengthInMemory(local, limit);
        if (!skip(memory, local)) return { record: decodeRecordOnDemand(memory, local), nextPosition: chunkStart + next, skipped };
        local = next;
        if (++skipped >= skipMax) return { nextPosition: chunkStart + local, skipped };
      }
      at = chunkStart + local;
    }
    return skipped > 0 ? { nextPosition: at, skipped } : undefined;
  }

  /**
   * The walk both serve: the first frame at or after `position` below the readable end, past the
   * free tails of chunks; without a frame, `position` is where the walk stopped.
   */
  private frameFrom(position: number): { frame?: FrameLocation; position: number; nextPosition: number } {
    let at = position;
    while (at < this.published) {
      const chunk = this.chunks[this.chunkNumberOf(at)];
      const chunkStart = chunk.chunkNumber * this.chunkSize;
      const found = chunk.recordFrom(at - chunkStart, this.chunkLimit(chunk));
      if (found) return { frame: found.frame, position: chunkStart + found.local, nextPosition: chunkStart + found.next };
      at = (chunk.header.endNumber + 1) * this.chunkSize;
    }
    return { position: at, nextPosition: at };
  }

  /**
   * Visits every record from `from` to `to` without decoding it: the start-up rebuild of the
   * index and the existence filter, where decoding data would cost most of the time.
   */
  scan(from: number, to: number, visit: (buffer: Buffer, offset: number, position: number) => void): void {
    let at = from;
    while (at < to) {
      const chunk = this.chunks[this.chunkNumberOf(at)];
      const chunkStart = chunk.chunkNumber * this.chunkSize;
      const found = chunk.recordFrom(at - chunkStart, Math.min(this.chunkLimit(chunk), to - chunkStart));
      if (!found) {
        at = (chunk.header.endNumber + 1) * this.chunkSize;
        continue;
      }
      visit(found.frame.buffer, found.frame.offset, chunkStart + found.local);
      at = chunkStart + found.next;
    }
  }

  /**
   * Visits every record from `from` to `to` like scan(), reading completed chunks in large blocks:
   * for walks over whole chunks (a scavenge's accumulation). Stops early, after the record that
   * makes the bytes visited reach `maxBytes`; returns where the walk can go on from (`to` when
   * it reached it).
   */
  scanChunks(from: number, to: number, visit: (buffer: Buffer, offset: number, position: number) => void, maxBytes = Infinity): number {
    let at = from;
    let visited = 0;
    while (at < to) {
      const chunk = this.chunks[this.chunkNumberOf(at)];
      const chunkStart = chunk.chunkNumber * this.chunkSize;
      const chunkEnd = (chunk.header.endNumber + 1) * this.chunkSize;
      if (!chunk.isCompleted) {
        this.scan(at, to, visit);
        return to;
      }
      // A walk that stops early reads little more than it visits.
      const blockBytes = Number.isFinite(maxBytes) ? maxBytes + SCAN_SLACK_BYTES : undefined;
      for (const found of chunk.records(true, at - chunkStart, blockBytes)) {
        const position = chunkStart + found.logical;
        if (position >= to) break;
        visit(found.buffer, found.offset, position);
        visited += found.framedLength;
        if (visited >= maxBytes) return Math.min(position + found.framedLength, to);
      }
      at = chunkEnd;
    }
    return to;
  }

  /** The last record that ends at or before `position`. */
  previousRecord(position: number): PositionedRecord | undefined {
    let end = Math.min(position, this.published);
    while (end > 0) {
      let number = this.chunkNumberOf(end);
      if (end % this.chunkSize === 0) number -= 1;
      const chunk = this.chunks[number];
      const chunkStart = chunk.chunkNumber * this.chunkSize;
      const localEnd = Math.min(end - chunkStart, this.chunkLimit(chunk));
      const found = chunk.recordBefore(localEnd);
      if (!found) {
        end = chunkStart;
        continue;
      }
      const { frame, local, next } = found;
      return { record: decodeRecord(frame.buffer, frame.offset), position: chunkStart + local, nextPosition: chunkStart + next };
    }
    return undefined;
  }

  /**
   * What a rewrite of completed chunks `startNumber`..`endNumber` starts from: the range's first
   * header (its end number set), its logical size and its chunk files, oldest first.
   */
  rewriteSource(startNumber: number, endNumber: number): RewriteSource {
    const first = this.chunks[startNumber];
    const last = this.chunks[endNumber];
    if (!first || !last || first.header.startNumber !== startNumber || last.header.endNumber !== endNumber || !last.isCompleted) {
      throw new RangeError(`chunks ${startNumber}-${endNumber} are not a range of completed chunks`);
    }
    const start = startNumber * this.chunkSize;
    const end = last.chunkNumber * this.chunkSize + last.logicalSize;
    return { header: { ...first.header, endNumber }, logicalDataSize: end - start, chunks: [...new Set(this.chunks.slice(startNumber, endNumber + 1))], chunkSize: this.chunkSize };
  }

  /** The records of a rewrite's source as whole frames with their logical offsets from the range's start. */
  chunkRange(startNumber: number, endNumber: number): RewriteSource & { records: RewrittenRecord[] } {
    const source = this.rewriteSource(startNumber, endNumber);
    const records: RewrittenRecord[] = [];
    for (const chunk of source.chunks) {
      const offset = (chunk.chunkNumber - startNumber) * this.chunkSize;
      for (const found of chunk.records()) {
        records.push({ logical: offset + found.logical, frame: found.buffer.subarray(found.offset, found.offset + found.framedLength) });
      }
    }
    return { ...source, records };
  }

  /** The chunk that holds chunk number `number` now (a merged chunk holds several). */
  chunkAt(number: number): Chunk | undefined {
    return this.chunks[number];
  }

  /** The chunk holding the readable record at `position`, and where in its file the record starts. */
  locate(position: number): { chunk: Chunk; fileOffset: number } {
    const chunk = this.chunks[this.chunkNumberOf(position)];
    if (!chunk || position >= this.published) throw new RangeError(`position ${position} is not in the readable log`);
    return { chunk, fileOffset: chunk.fileOffsetOf(position - chunk.chunkNumber * this.chunkSize) };
  }

  /** Chunk replacements done since the log was opened: record bytes may have changed with each. */
  get replacementCount(): number {
    return this.replacements;
  }

  /**
   * Which versions of the chunk files the log reads, as a number that changes with every chunk
   * replacement and survives a restart (0 while every chunk file is version 0): what HTTP
   * validators include, since a redaction changes events without a write. A chunk number's
   * versions only grow and merged chunks never split again, so a set of files does not recur.
   */
  get contentEpoch(): number {
    if (this.epochAtReplacements !== this.replacements) {
      this.epoch = epochOf(new Set(this.chunks));
      this.epochAtReplacements = this.replacements;
    }
    return this.epoch;
  }

  /**
   * Switches in the rewritten chunk at `tempPath` (in the database directory) for the completed
   * chunks it covers, once `validate` accepts it (maintenance/replacement-check.ts). The new file gets
   * the next version of the range's first file name, then the old files are renamed away and
   * deleted once this has returned (deleteReplacedFiles): a crash leaves the old chunks (the
   * temp file is deleted at start) or the new one (an older version, a file a merged chunk
   * covers or a renamed one is deleted at start), never neither and never both. Reads in
   * progress finish on the files they opened. Refused: the coded error, and nothing changed.
   */
  async replaceChunks(tempPath: string, validate: ReplacementValidator, options: ReplaceOptions = {}): Promise<Chunk> {
    const candidate = await Chunk.open(tempPath, this.chunkSize).catch((error: unknown) => {
      throw Errors.storageReplacementInvalid.create(tempPath, (error as Error).message);
    });
    let replaced: Chunk[];
    try {
      const range = { chunkSize: this.chunkSize, chunkAt: (n: number) => this.chunks[n] };
      replaced = await validate(candidate, range);
    } finally {
      await candidate.close();
    }
    await options.onStep?.('validated');
    const { startNumber, endNumber } = candidate.header;
    const version = Math.max(...replaced.map((chunk) => parseChunkFileName(chunk.fileName)?.version ?? 0)) + 1;
    const path = join(this.options.dbPath, chunkFileName(startNumber, version));
    await fileSystem.rename(tempPath, path);
    await fsyncDirectory(this.options.dbPath);
    await options.onStep?.('renamed');
    const replacement = await Chunk.open(path, this.chunkSize);
    for (let n = startNumber; n <= endNumber; n++) this.chunks[n] = replacement;
    this.replacements++;
    await options.onStep?.('switched');
    for (const chunk of replaced) {
      await chunk.close();
      const renamed = replacedPath(chunk);
      await fileSystem.rename(chunk.path, renamed);
      this.replacedFiles.push(renamed);
    }
    this.options.logger.info({ chunk: replacement.fileName, replaced: replaced.map((chunk) => chunk.fileName) }, 'chunk replaced');
    await options.onStep?.('removed');
    if (!options.deleteReplacedLater) void this.deleteReplacedFiles();
    return replacement;
  }

  /**
   * Deletes the replaced chunk files not deleted yet, after the switches have returned: unlinking
   * a chunk file drops its cached pages, tens of milliseconds for a large chunk that a switch
   * need not wait for. The files were renamed out of the chunk names already, so no listing of
   * chunks sees them; a crash before they are gone leaves them for the next start to delete.
   * Settles when they are gone; close() waits for them too.
   */
  deleteReplacedFiles(): Promise<void> {
    const paths = this.replacedFiles.splice(0);
    this.deletions = this.deletions.then(async () => {
      for (const path of paths) {
        await fileSystem.unlink(path).catch((error: unknown) => this.options.logger.warn({ file: path, err: error }, 'could not delete a replaced chunk file'));
      }
    });
    return this.deletions;
  }

  /** Every chunk file, oldest first (a merged file once). */
  chunkList(): Chunk[] {
    return [...new Set(this.chunks)];
  }

  /** Completed chunks, newest first, for the start-up hash verification. */
  completedChunks(): Chunk[] {
    return [...new Set(this.chunks)].filter((chunk) => chunk.isCompleted).reverse();
  }

  async close(): Promise<void> {
    await this.deleteReplacedFiles();
    await this.nextChunk?.close();
    this.nextChunk = undefined;
    for (const chunk of new Set(this.chunks)) await chunk.close();
    this.chunks.length = 0;
  }
}
