/**
 * Writes a rewritten chunk as its records are chosen, in bounded memory: the records kept are
 * copied (whole runs at a time, byte for byte: a record keeps its log position, so its frame and
 * checksum do not change) into a few shared blocks, each written to the file as it fills and then
 * hashed and read back on the hashing thread. The position map, padding and footer follow; the
 * footer's hash is written last and the file synced once. The file then holds exactly the bytes
 * hashed, which is the proof its check (validateOwnRewrite) takes.
 */
import type { FileHandle } from 'node:fs/promises';
import { Errors } from '../../common/errors.js';
import { Md5FileStream } from '../../common/md5-thread.js';
import {
  CHUNK_FOOTER_BYTES, CHUNK_HEADER_BYTES, FOOTER_HASHED_BYTES, completedFileBytes, encodeChunkFooter, encodeChunkHeader,
  setFooterHash, type ChunkHeader,
} from '../log/chunk-format.js';
import { storageError, writeFully } from '../disk/file-write.js';
import { writeInt64 } from '../log/int64.js';
import { BufferPool } from './buffer-pool.js';
import { POSITION_MAP_ENTRY_BYTES } from '../log/position-map.js';
import { PRIVATE_FILE_MODE } from '../disk/file-modes.js';
import { fileSystem } from '../disk/file-system.js';

/** Bytes of one output block; a longer frame gets a block of its own size. */
const BLOCK_BYTES = 16 * 1024 * 1024;
/** Blocks written or hashed at once before the writer waits for the oldest (writes may stall while the disk is busy). */
const BLOCKS_IN_FLIGHT = 3;
/** Blocks kept between rewrites: enough for 4 rewrites at once (scavenge threads). */
const blocks = new BufferPool(BLOCK_BYTES, (bytes) => Buffer.from(new SharedArrayBuffer(bytes)), 4 * (BLOCKS_IN_FLIGHT + 1));

export interface RewriteTarget {
  path: string;
  /**
   * Writes each block in steps of this many bytes, each flushed before the next: the disk then
   * never holds more than a step of this file ahead of another writer's flush (the log's appends),
   * which would otherwise wait behind a whole block. Unset: blocks written whole, one sync at the end.
   */
  flushStepBytes?: number;
  header: ChunkHeader;
  /** The logical size of the chunk's data: where its last original record ended. */
  logicalDataSize: number;
}

interface OutputBlock {
  bytes: Buffer;
  /** Resolves once the block is written and checked, and may be filled again. */
  done?: Promise<void>;
}

export class RewrittenChunkWriter {
  private readonly free: OutputBlock[] = [];
  private readonly inFlight: OutputBlock[] = [];
  private current: OutputBlock;
  private filled = 0;
  /** File offset of the current block's first byte. */
  private fileOffset = 0;
  private logicals = new Float64Array(1024);
  private physicals = new Uint32Array(1024);
  private records = 0;
  /** The run of frames waiting to be copied: contiguous bytes of one source buffer. */
  private run: { source: Buffer; start: number; end: number } | undefined;
  private failure: Error | undefined;
  private finished = false;

  private constructor(private readonly target: RewriteTarget, private readonly handle: FileHandle, private readonly hash: Md5FileStream) {
    this.current = { bytes: blocks.take() };
    this.filled = encodeChunkHeader({ ...target.header, isScavenged: true }).copy(this.current.bytes, 0);
  }

  static async create(target: RewriteTarget): Promise<RewrittenChunkWriter> {
    const handle = await fileSystem.open(target.path, 'wx', PRIVATE_FILE_MODE).catch((error: unknown) => {
      throw storageError(target.path, 'create', error);
    });
    return new RewrittenChunkWriter(target, handle, new Md5FileStream(target.path));
  }

  get recordCount(): number {
    return this.records;
  }

  /** Bytes of records so far. */
  private get physical(): number {
    return this.fileOffset + this.filled - CHUNK_HEADER_BYTES + (this.run ? this.run.end - this.run.start : 0);
  }

  /**
   * Makes room for `bytes` more bytes of records, waiting for a block to come free if need be:
   * called before a source block is walked, with its length, so add() never waits.
   */
  async reserve(bytes: number): Promise<void> {
    this.flushRun();
    if (this.filled + bytes <= this.current.bytes.length) return;
    this.submit(this.current.bytes.subarray(0, this.filled), this.current);
    this.current = await this.freeBlock(bytes);
    this.filled = 0;
  }

  /**
   * Adds the frame at `source[offset, offset + length)` as the record at logical offset `logical`
   * (ascending). Frames adjacent in `source` are copied as one run: call endOfSource() before
   * `source` may change.
   */
  add(source: Buffer, offset: number, length: number, logical: number): void {
    if (this.records > 0 && logical <= this.logicals[this.records - 1]) throw new TypeError('rewritten records must ascend by logical offset');
    if (this.records === this.logicals.length) this.grow();
    this.logicals[this.records] = logical;
    this.physicals[this.records] = this.physical;
    this.records++;
    if (this.run && this.run.source === source && this.run.end === offset) {
      this.run.end += length;
      return;
    }
    this.flushRun();
    this.run = { source, start: offset, end: offset + length };
  }

  /**
   * Writes the position map, padding and footer, then the footer's hash once every byte before it
   * was hashed and found in the file, and syncs. Returns the file's hash once it is durable.
   */
  async finish(): Promise<Buffer> {
    this.flushRun();
    const physical = this.physical;
    const mapBytes = this.records * POSITION_MAP_ENTRY_BYTES;
    const fileBytes = completedFileBytes(physical, mapBytes);
    const tailBytes = fileBytes - CHUNK_HEADER_BYTES - physical;
    await this.reserve(tailBytes);
    const tail = this.current.bytes.subarray(this.filled, this.filled + tailBytes);
    tail.fill(0);
    for (let i = 0; i < this.records; i++) {
      tail.writeUInt32LE(this.physicals[i], i * POSITION_MAP_ENTRY_BYTES);
      writeInt64(tail, i * POSITION_MAP_ENTRY_BYTES + 4, this.logicals[i]);
    }
    const footer = encodeChunkFooter({ isCompleted: true, physicalDataSize: physical, logicalDataSize: this.target.logicalDataSize, mapSize: mapBytes });
    footer.copy(tail, tailBytes - CHUNK_FOOTER_BYTES);
    this.filled += tailBytes;
    const hashedEnd = this.filled - (CHUNK_FOOTER_BYTES - FOOTER_HASHED_BYTES);
    const blockStart = this.fileOffset;
    this.submit(this.current.bytes.subarray(0, hashedEnd), undefined);
    await Promise.all(this.pending());
    this.finished = true;
    const digest = await this.hash.end();
    if (this.failure) throw this.failure;
    const hashBytes = this.current.bytes.subarray(hashedEnd, this.filled);
    setFooterHash(this.current.bytes.subarray(this.filled - CHUNK_FOOTER_BYTES, this.filled), digest);
    await writeFully(this.handle, hashBytes, 0, hashBytes.length, blockStart + hashedEnd, this.target.path);
    try {
      await this.handle.sync();
    } catch (error) {
      throw Errors.storageIo.create(this.target.path, 'fsync', String(error));
    }
    await this.handle.close();
    this.giveBack();
    return digest;
  }

  /** Abandons the file: closes and deletes it. */
  async discard(): Promise<void> {
    await Promise.allSettled(this.pending());
    if (!this.finished) await this.hash.end().catch(() => undefined);
    this.giveBack();
    await this.handle.close().catch(() => undefined);
    await fileSystem.unlink(this.target.path).catch(() => undefined);
  }

  /** Copies the run waiting: the source of the frames added so far may change after this. */
  endOfSource(): void {
    this.flushRun();
  }

  private pending(): Array<Promise<void>> {
    return this.inFlight.flatMap((block) => (block.done ? [block.done] : []));
  }

  /** Returns the blocks to the pool once nothing writes or hashes them. */
  private giveBack(): void {
    for (const block of [this.current, ...this.free, ...this.inFlight]) blocks.give(block.bytes);
    this.free.length = 0;
    this.inFlight.length = 0;
  }

  private flushRun(): void {
    if (!this.run) return;
    const { source, start, end } = this.run;
    this.run = undefined;
    this.filled += source.copy(this.current.bytes, this.filled, start, end);
  }

  /** Writes `bytes` (the start of `block`) at the current file offset, then has the thread hash and check them. */
  private submit(bytes: Buffer, block: OutputBlock | undefined): void {
    const position = this.fileOffset;
    this.fileOffset += bytes.length;
    // Hashed while it is written; read back once written.
    const hashed = this.hash.update(bytes);
    const checked = (async () => {
      await this.write(bytes, position);
      if (!(await this.hash.check(bytes, position))) throw Errors.storageIo.create(this.target.path, 'read back', `the file does not hold the bytes written at ${position}`);
    })();
    // Free only once both are over, failed or not: the thread may still be reading the block.
    const done = Promise.allSettled([hashed, checked]).then((outcomes) => {
      for (const outcome of outcomes) if (outcome.status === 'rejected') this.failure ??= outcome.reason as Error;
    });
    if (block) {
      block.done = done;
      this.inFlight.push(block);
    } else {
      this.inFlight.push({ bytes, done });
    }
  }

  private async write(bytes: Buffer, position: number): Promise<void> {
    const step = this.target.flushStepBytes;
    if (step === undefined) {
      await writeFully(this.handle, bytes, 0, bytes.length, position, this.target.path);
      return;
    }
    for (let at = 0; at < bytes.length; at += step) {
      await writeFully(this.handle, bytes, at, Math.min(step, bytes.length - at), position + at, this.target.path);
      try {
        await this.handle.datasync();
      } catch (error) {
        throw Errors.storageIo.create(this.target.path, 'fdatasync', String(error));
      }
    }
  }

  private async freeBlock(bytes: number): Promise<OutputBlock> {
    this.throwIfFailed();
    if (bytes > BLOCK_BYTES) return { bytes: sharedBlock(bytes) };
    if (this.inFlight.length >= BLOCKS_IN_FLIGHT) {
      const oldest = this.inFlight.shift()!;
      await oldest.done;
      this.throwIfFailed();
      if (oldest.bytes.length === BLOCK_BYTES) this.free.push(oldest);
    }
    return this.free.pop() ?? { bytes: blocks.take() };
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  private grow(): void {
    const logicals = new Float64Array(this.logicals.length * 2);
    logicals.set(this.logicals);
    const physicals = new Uint32Array(this.physicals.length * 2);
    physicals.set(this.physicals);
    this.logicals = logicals;
    this.physicals = physicals;
  }
}

function sharedBlock(bytes: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(bytes));
}
