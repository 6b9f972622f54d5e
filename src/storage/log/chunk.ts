import { createHash } from 'node:crypto';
import { fstatSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Errors } from '../../common/errors.js';
import { RunningMd5, md5OfFile, touchPages } from '../../common/md5-thread.js';
import { fsyncDirectory } from '../disk/durable-file.js';
import {
  CHUNK_FOOTER_BYTES, CHUNK_HASH_BYTES, CHUNK_HEADER_BYTES, FOOTER_HASHED_BYTES, chunkFileName, completedFileBytes, decodeChunkFooter,
  decodeChunkHeader, encodeChunkFooter, encodeChunkHeader, newChunkHeader, ongoingFileBytes, setFooterHash,
  type ChunkHeader,
} from './chunk-format.js';
import { RECORD_PAYLOAD_BYTES_MAX, checkFrame } from './record.js';
import { storageError, writeFully, writeFullySync } from '../disk/file-write.js';
import { POSITION_MAP_ENTRY_BYTES, PositionMap } from './position-map.js';
import { PRIVATE_FILE_MODE } from '../disk/file-modes.js';
import { fileSystem } from '../disk/file-system.js';
import { readData } from '../disk/cold-reads.js';

const READ_AHEAD_BYTES = 4096;
const HASH_BLOCK_BYTES = 4 * 1024 * 1024;

/** Where a frame was found: `buffer` holds the whole frame at `offset`. */
export interface FrameLocation {
  buffer: Buffer;
  offset: number;
  framedLength: number;
}

/** A frame found by a walk of the records, with its logical offset. */
export interface LocatedFrame extends FrameLocation {
  logical: number;
}

/**
 * An ongoing chunk's memory is shared: the hashing thread hashes what is appended without a
 * copy, and touches the pages this far past the data before the writer gets there (see
 * touchPages). Only so far: a node that writes little keeps its memory as small as before.
 */
const TOUCH_AHEAD_BYTES = 16 * 1024 * 1024;

/** Bytes read at a time by a walk of every record of a chunk. */
const RECORDS_BLOCK_BYTES = 8 * 1024 * 1024;

/** A block of a completed chunk's data: whole frames from data offset `physical`, the first of them the file's record number `firstIndex`. */
export interface DataBlock {
  bytes: Buffer;
  physical: number;
  firstIndex: number;
}

/** A record found by logical offset: its frame, its offset and the logical offset of the next one. */
export interface LocatedRecord {
  frame: FrameLocation;
  local: number;
  next: number;
}

/**
 * One chunk file. The ongoing chunk keeps every byte it has written in memory as well, and
 * reads of it are served from memory only, so a reader never depends on what the page cache
 * has seen. Completed chunks are read with positional reads unless their memory is kept as a
 * cache.
 */
export class Chunk {
  private memory: Buffer | undefined;
  /** The MD5 of the ongoing chunk's file so far, kept on the hashing thread. */
  private hash: RunningMd5 | undefined;
  /** Where the pages of the memory were touched up to. */
  private touchedEnd = 0;
  private closed = false;
  /** Logical offset → physical offset of each record, for a rewritten chunk; none: the same. */
  private positionMap: PositionMap | undefined;
  /** The logical size of a rewritten chunk's data; otherwise its physical size. */
  private logicalBytes: number | undefined;

  private constructor(
    readonly path: string,
    readonly header: ChunkHeader,
    private readonly handle: FileHandle,
    private completed: boolean,
    private dataBytes: number,
  ) {}

  get fileName(): string {
    return basename(this.path);
  }

  get isCompleted(): boolean {
    return this.completed;
  }

  /** Bytes of records in the chunk's file (for the ongoing chunk: bytes written so far). */
  get dataSize(): number {
    return this.dataBytes;
  }

  /** The chunk's data as log positions see it: larger than dataSize once records were removed. */
  get logicalSize(): number {
    return this.logicalBytes ?? this.dataBytes;
  }

  get isMapped(): boolean {
    return this.positionMap !== undefined;
  }

  private get mapBytes(): number {
    return (this.positionMap?.size ?? 0) * POSITION_MAP_ENTRY_BYTES;
  }

  /** The size of a completed chunk's file. */
  get fileBytes(): number {
    return completedFileBytes(this.dataBytes, this.mapBytes);
  }

  get chunkNumber(): number {
    return this.header.startNumber;
  }

  /**
   * Creates a new ongoing chunk: preallocated temp file, header fsynced, then renamed in. A
   * replica passes the leader's `header`, so that its copy of the chunk completes byte for byte
   * as the leader's did.
   */
  static async create(directory: string, chunkNumber: number, chunkSize: number, header = newChunkHeader(chunkSize, chunkNumber)): Promise<Chunk> {
    const path = join(directory, chunkFileName(chunkNumber, 0));
    const temp = `${path}.${header.chunkId}.tmp`;
    let handle: FileHandle;
    try {
      handle = await fileSystem.open(temp, 'w+', PRIVATE_FILE_MODE);
    } catch (error) {
      throw storageError(temp, 'create chunk', error);
    }
    const headerBytes = encodeChunkHeader(header);
    try {
      await handle.truncate(ongoingFileBytes(chunkSize));
      await writeFully(handle, headerBytes, 0, CHUNK_HEADER_BYTES, 0, temp);
      await syncHandle(handle, temp);
      await fileSystem.rename(temp, path);
    } catch (error) {
      // A chunk that could not be made (a full disk, say) leaves nothing behind to trip the next start.
      await handle.close();
      await fileSystem.unlink(temp).catch(() => undefined);
      throw storageError(temp, 'create chunk', error);
    }
    try {
      await fsyncDirectory(directory);
    } catch (error) {
      // The file stays: an empty chunk at the writer's position, which the next start resumes.
      await handle.close().catch(() => undefined);
      throw error;
    }
    const chunk = new Chunk(path, header, handle, false, 0);
    chunk.memory = Buffer.from(new SharedArrayBuffer(chunkSize));
    chunk.touchAhead();
    chunk.hash = new RunningMd5();
    chunk.hash.update(headerBytes);
    return chunk;
  }

  /** Opens an existing chunk file and reads its header and footer; verifies nothing else. */
  static async open(path: string, expectedChunkSize: number): Promise<Chunk> {
    const handle = await fileSystem.open(path, 'r+');
    try {
      return Chunk.fromFile(path, handle, expectedChunkSize);
    } catch (error) {
      // Whatever failed (a corrupt footer, a read error), the file is not left open.
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  private static fromFile(path: string, handle: FileHandle, expectedChunkSize: number): Chunk {
    const fd = handle.fd;
    const size = fstatSync(fd).size;
    const headerBytes = Buffer.alloc(CHUNK_HEADER_BYTES);
    fileSystem.readSync(fd, headerBytes, 0, CHUNK_HEADER_BYTES, 0);
    const header = decodeChunkHeader(headerBytes);
    const corrupt = (what: string) => Errors.storageCorrupt.create(path, 0, what);
    if (typeof header === 'string') throw corrupt(header);
    if (header.chunkSize !== expectedChunkSize) {
      throw corrupt(`chunk size ${header.chunkSize} differs from the database's ${expectedChunkSize} (the size in its first chunk)`);
    }
    if (size < CHUNK_HEADER_BYTES + CHUNK_FOOTER_BYTES) throw corrupt('file shorter than header and footer');
    const footerBytes = Buffer.alloc(CHUNK_FOOTER_BYTES);
    fileSystem.readSync(fd, footerBytes, 0, CHUNK_FOOTER_BYTES, size - CHUNK_FOOTER_BYTES);
    const footer = decodeChunkFooter(footerBytes);
    if (!footer.isCompleted) return new Chunk(path, header, handle, false, 0);
    if (completedFileBytes(footer.physicalDataSize, footer.mapSize) !== size) {
      throw corrupt(`completed chunk of ${size} bytes does not match its footer's data size ${footer.physicalDataSize}`);
    }
    const chunk = new Chunk(path, header, handle, true, footer.physicalDataSize);
    // A rewritten chunk has a map even when it kept no record: its logical size is in the footer.
    if (footer.mapSize > 0 || header.isScavenged) {
      const problem = chunk.loadPositionMap(footer.mapSize, footer.logicalDataSize);
      if (problem) throw corrupt(problem);
    }
    return chunk;
  }

  /** Reads the position map written after the records; returns what is wrong with it, if anything. */
  private loadPositionMap(mapSize: number, logicalDataSize: number): string | undefined {
    const bytes = Buffer.alloc(mapSize);
    fileSystem.readSync(this.handle.fd, bytes, 0, mapSize, CHUNK_HEADER_BYTES + this.dataBytes);
    const map = PositionMap.decode(bytes);
    if (typeof map === 'string') return map;
    const last = map.size > 0 ? map.entry(map.size - 1) : undefined;
    if (last && (last.physical >= this.dataBytes || last.logical >= logicalDataSize)) return 'position map points past the data';
    this.positionMap = map;
    this.logicalBytes = logicalDataSize;
    return undefined;
  }

  /**
   * Makes an ongoing chunk writable at `dataEnd` (from writer.chk): loads the data into memory,
   * rebuilds the running hash, and wipes any bytes written past `dataEnd` that were never
   * acknowledged, so nothing torn or unacknowledged can be read later.
   */
  async resumeWriting(dataEnd: number): Promise<void> {
    if (this.completed) throw new TypeError('resumeWriting on a completed chunk');
    const fd = this.handle.fd;
    this.cutAfter(dataEnd);
    this.memory = Buffer.from(new SharedArrayBuffer(this.header.chunkSize));
    if (dataEnd > 0) fileSystem.readSync(fd, this.memory, 0, dataEnd, CHUNK_HEADER_BYTES);
    this.dataBytes = dataEnd;
    this.touchedEnd = dataEnd;
    this.touchAhead();
    this.hash?.end();
    this.hash = new RunningMd5();
    this.hash.update(this.headerBytes());
    this.hash.update(this.memory.subarray(0, dataEnd));
  }

  /**
   * Drops every byte after data offset `from` and gives the file back its ongoing size: cutting
   * and re-extending zeroes the tail without writing it, so it works on a full disk too.
   */
  private cutAfter(from: number): void {
    const fd = this.handle.fd;
    try {
      fileSystem.ftruncateSync(fd, CHUNK_HEADER_BYTES + from);
      fileSystem.ftruncateSync(fd, ongoingFileBytes(this.header.chunkSize));
    } catch (error) {
      throw storageError(this.path, 'truncate', error);
    }
    this.syncNow();
  }

  /** Drops whatever lies past the data of the ongoing chunk (a write that failed part way), durably. */
  wipeAfterData(): void {
    if (this.completed) throw new TypeError('wipeAfterData on a completed chunk');
    this.cutAfter(this.dataBytes);
  }

  private syncNow(): void {
    try {
      fileSystem.fsyncSync(this.handle.fd);
    } catch (error) {
      throw Errors.storageIo.create(this.path, 'fsync', String(error));
    }
  }

  /** Bytes still free for records. */
  get freeBytes(): number {
    return this.completed ? 0 : this.header.chunkSize - this.dataBytes;
  }

  /**
   * The ongoing chunk's memory, for encoding records in place at `dataSize` onwards: what is
   * encoded there becomes part of the chunk only through commitEncoded().
   */
  get encodeBuffer(): Buffer {
    if (this.completed || !this.memory) throw new TypeError('encoding into a chunk that is not ongoing');
    return this.memory;
  }

  /**
   * Appends the `length` bytes encoded in place after the data: writes them, then hashes them.
   * A write that fails (a full disk) changes nothing: the bytes stay outside the chunk's data, and
   * whatever part reached the file lies past the data, where it is overwritten or cut.
   * `onThreadPool`: the write is made off the event loop, which may meanwhile run anything but
   * another write to this chunk.
   */
  async commitEncoded(length: number, onThreadPool = false): Promise<void> {
    const memory = this.encodeBuffer;
    const at = this.dataBytes;
    if (onThreadPool) await writeFully(this.handle, memory, at, length, CHUNK_HEADER_BYTES + at, this.path);
    else writeFullySync(this.handle.fd, memory, at, length, CHUNK_HEADER_BYTES + at, this.path);
    this.hash!.update(memory.subarray(at, at + length));
    this.dataBytes += length;
    this.touchAhead();
  }

  /** Has the pages up to TOUCH_AHEAD_BYTES past the data touched, once half of that is left. */
  private touchAhead(): void {
    const memory = this.memory!;
    if (this.touchedEnd - this.dataBytes >= TOUCH_AHEAD_BYTES / 2 || this.touchedEnd >= memory.length) return;
    const from = Math.max(this.touchedEnd, this.dataBytes);
    this.touchedEnd = Math.min(this.dataBytes + TOUCH_AHEAD_BYTES, memory.length);
    touchPages(memory.subarray(from, this.touchedEnd)).catch(() => undefined);
  }

  /** Appends framed records at the end of the data (the caller checked they fit). */
  async append(bytes: Buffer): Promise<void> {
    bytes.copy(this.encodeBuffer, this.dataBytes);
    await this.commitEncoded(bytes.length);
  }

  /** Makes every appended byte durable. A failure is fatal: the caller must never retry. */
  async sync(): Promise<void> {
    try {
      await this.handle.datasync();
    } catch (error) {
      throw Errors.storageIo.create(this.path, 'fsync', String(error));
    }
  }

  /** Whether the chunk could be completed now: ongoing, with its running hash. */
  get isOngoing(): boolean {
    return !this.completed && this.hash !== undefined;
  }

  /**
   * Writes padding and footer with the file hash, cuts the file to size and fsyncs it. The tail
   * is written before the cut, so a write that fails (a full disk) leaves an ongoing chunk of
   * full size that can be completed later; the running hash is only copied until then.
   */
  async complete(): Promise<void> {
    if (!this.isOngoing) throw new TypeError('complete on a chunk that is not ongoing');
    const fileBytes = completedFileBytes(this.dataBytes);
    const padding = Buffer.alloc(fileBytes - CHUNK_HEADER_BYTES - this.dataBytes - CHUNK_FOOTER_BYTES);
    const footer = encodeChunkFooter({
      isCompleted: true, physicalDataSize: this.dataBytes, logicalDataSize: this.dataBytes, mapSize: 0,
    });
    setFooterHash(footer, await this.fileDigest(padding, footer.subarray(0, FOOTER_HASHED_BYTES)));
    const tail = Buffer.concat([padding, footer]);
    await writeFully(this.handle, tail, 0, tail.length, CHUNK_HEADER_BYTES + this.dataBytes, this.path);
    try {
      await this.handle.truncate(fileBytes);
    } catch (error) {
      throw storageError(this.path, 'truncate', error);
    }
    await syncHandle(this.handle, this.path);
    this.completed = true;
    this.hash!.end();
    this.hash = undefined;
  }

  /**
   * The MD5 of the completed file, header to the footer's hashed part: from the running hash,
   * or from the memory should the hashing thread have failed.
   */
  private async fileDigest(padding: Buffer, footerHashed: Buffer): Promise<Buffer> {
    try {
      return await this.hash!.digestWith(padding.length, footerHashed);
    } catch {
      return createHash('md5').update(this.headerBytes()).update(this.memory!.subarray(0, this.dataBytes))
        .update(padding).update(footerHashed).digest();
    }
  }

  private headerBytes(): Buffer {
    const bytes = Buffer.alloc(CHUNK_HEADER_BYTES);
    fileSystem.readSync(this.handle.fd, bytes, 0, CHUNK_HEADER_BYTES, 0);
    return bytes;
  }

  /** Keeps (or drops) the in-memory copy of a completed chunk, as a read cache. */
  setCached(cached: boolean): void {
    if (!cached) this.memory = undefined;
  }

  get isCached(): boolean {
    return this.memory !== undefined;
  }

  /** The physical offset of the record at logical offset `local`; a rewritten chunk looks it up. */
  private physicalOf(local: number): number {
    if (!this.positionMap) return local;
    const physical = this.positionMap.physicalOf(local);
    if (physical === undefined) throw Errors.storageCorrupt.create(this.path, local, 'no record starts at this position of a rewritten chunk');
    return physical;
  }

  /** Where in the file the record at logical offset `local` starts (its length prefix). */
  fileOffsetOf(local: number): number {
    return CHUNK_HEADER_BYTES + this.physicalOf(local);
  }

  /** The record at logical offset `local`, below the logical `limit`. */
  recordAt(local: number, limit: number, verify = false): FrameLocation {
    if (!this.positionMap) return this.frameAt(local, limit, verify);
    return this.frameAt(this.physicalOf(local), this.dataBytes, verify);
  }

  /** Whether a record starts at logical offset `local` (below `limit`). */
  isRecordStart(local: number, limit: number): boolean {
    if (this.positionMap) return this.positionMap.physicalOf(local) !== undefined;
    try {
      this.frameAt(local, limit, true);
      return true;
    } catch (error) {
      if (Errors.storageCorrupt.is(error) || Errors.storageChecksum.is(error)) return false;
      throw error;
    }
  }

  /** The first record at or after logical offset `local` and below `limit`, with the offset after it. */
  recordFrom(local: number, limit: number): LocatedRecord | undefined {
    const map = this.positionMap;
    if (!map) {
      if (local >= limit) return undefined;
      const frame = this.frameAt(local, limit);
      return { frame, local, next: local + frame.framedLength };
    }
    const index = map.firstAtOrAfter(local);
    if (index >= map.size || map.entry(index).logical >= limit) return undefined;
    return this.mappedRecord(map, index);
  }

  /** The last record before logical offset `end` (a record's end, or the data's end). */
  recordBefore(end: number): LocatedRecord | undefined {
    const map = this.positionMap;
    if (!map) {
      if (end <= 0) return undefined;
      const frame = this.frameEndingAt(end);
      return { frame, local: end - frame.framedLength, next: end };
    }
    const index = map.firstAtOrAfter(end) - 1;
    return index < 0 ? undefined : this.mappedRecord(map, index);
  }

  private mappedRecord(map: PositionMap, index: number): LocatedRecord {
    const { logical, physical } = map.entry(index);
    const next = index + 1 < map.size ? map.entry(index + 1).logical : this.logicalSize;
    return { frame: this.frameAt(physical, this.dataBytes), local: logical, next };
  }

  /**
   * Finds the frame at data offset `local`, checking it ends before `limit` (data offset) and,
   * when read from the file or asked to `verify`, that it passes its checksum. A bad frame below
   * the durable end is corruption, never skipped.
   */
  frameAt(local: number, limit: number, verify = false): FrameLocation {
    if (this.closed) throw Errors.storageClosed.create(`chunk ${this.path} is closed`);
    if (this.memory) {
      // Bytes in memory were checked when they entered it (written by us, or walked at start).
      return verify ? this.checked(this.memory, local, limit, local) : this.trusted(this.memory, local, limit);
    }
    const want = Math.min(READ_AHEAD_BYTES, limit - local);
    let buffer = Buffer.allocUnsafe(want);
    readData(this.handle.fd, buffer, 0, want, CHUNK_HEADER_BYTES + local);
    if (want >= 4) {
      const framed = buffer.readUInt32LE(0) + 8;
      if (framed > want && local + framed <= limit) {
        buffer = Buffer.allocUnsafe(framed);
        readData(this.handle.fd, buffer, 0, framed, CHUNK_HEADER_BYTES + local);
      }
    }
    return this.checked(buffer, 0, buffer.length, local);
  }

  /** Finds the frame that ends at data offset `end`, by its length suffix. */
  frameEndingAt(end: number): FrameLocation {
    let suffix: number;
    if (this.memory) {
      suffix = this.memory.readUInt32LE(end - 4);
    } else {
      const bytes = Buffer.allocUnsafe(4);
      readData(this.handle.fd, bytes, 0, 4, CHUNK_HEADER_BYTES + end - 4);
      suffix = bytes.readUInt32LE(0);
    }
    const start = end - suffix - 8;
    if (start < 0) throw Errors.storageCorrupt.create(this.path, end, 'record length suffix points before the chunk start');
    return this.frameAt(start, end);
  }

  private trusted(memory: Buffer, local: number, limit: number): FrameLocation {
    return { buffer: memory, offset: local, framedLength: this.frameLengthInMemory(local, limit) };
  }

  /**
   * The memory the chunk's records lie in at their logical offsets, for walks over many records
   * that make no object per record (see TransactionLog.nextRecordSkipping); undefined when they
   * are read from the file, or the chunk was rewritten.
   */
  get recordMemory(): Buffer | undefined {
    return this.closed || this.positionMap ? undefined : this.memory;
  }

  /** The framed length of the record at logical offset `local` of recordMemory, which must end by `limit`. */
  frameLengthInMemory(local: number, limit: number): number {
    const framedLength = this.memory!.readUInt32LE(local) + 8;
    if (local + framedLength > limit) throw Errors.storageCorrupt.create(this.path, local, 'record runs past the end of the data');
    return framedLength;
  }

  private checked(buffer: Buffer, offset: number, limit: number, local: number): FrameLocation {
    const check = checkFrame(buffer, offset, limit);
    if (check.problem === 'checksum') throw Errors.storageChecksum.create(this.path, local);
    if (check.problem) throw Errors.storageCorrupt.create(this.path, local, `bad record frame (${check.problem})`);
    return { buffer, offset, framedLength: check.framedLength };
  }

  /**
   * Every record of a completed chunk in file order with its logical offset, read in large
   * blocks (a whole rewrite or scan costs a few reads, not one per record) and checked against
   * its checksum unless the caller checks the bytes otherwise (`verify` false: only the frame
   * lengths are followed). A frame stays valid after the walk moves on: each block is a buffer
   * of its own. The walk starts at the first record at or after `fromLocal` (a record's start in
   * a chunk without a position map); `blockBytes` sizes the reads, for a walk that stops early.
   */
  *records(verify = true, fromLocal = 0, blockBytes = RECORDS_BLOCK_BYTES): Generator<LocatedFrame, void, undefined> {
    if (!this.completed) throw new TypeError('records() on a chunk that is not completed');
    const map = this.positionMap;
    let index = map ? map.firstAtOrAfter(fromLocal) : 0;
    let physical = map ? (index < map.size ? map.entry(index).physical : this.dataBytes) : fromLocal;
    while (physical < this.dataBytes) {
      const block = this.dataBlock(physical, blockBytes);
      let at = 0;
      while (at + 4 <= block.length) {
        const framedLength = block.readUInt32LE(at) + 8;
        if (at + framedLength > block.length) break;
        const checked = verify ? this.checked(block, at, at + framedLength, physical + at).framedLength : framedLength;
        yield { buffer: block, offset: at, framedLength: checked, logical: map ? map.entry(index).logical : physical + at };
        index++;
        at += checked;
      }
      if (at === 0) this.checked(block, 0, block.length, physical);
      physical += at;
    }
  }

  /**
   * The data of a completed chunk in blocks of whole frames, the next block read asynchronously
   * while the caller works on this one, so a walk of a whole chunk lets the event loop turn
   * between blocks (a rewrite beside appends). Frames are not checked here. The blocks are read
   * into the two `spare` buffers in turn, so a block's memory is reused two blocks later: copy
   * what must outlive it. Once the walk ends early, a read may still be under way into them.
   */
  async *dataBlocks(spare: readonly [Buffer, Buffer]): AsyncGenerator<DataBlock, void, undefined> {
    if (!this.completed) throw new TypeError('dataBlocks() on a chunk that is not completed');
    let turn = 0;
    let physical = 0;
    let index = 0;
    let next = physical < this.dataBytes ? this.readBlock(spare[turn], physical) : undefined;
    while (next) {
      const bytes = await next;
      const { end, frames } = wholeFrames(bytes);
      if (frames === 0) throw Errors.storageCorrupt.create(this.path, physical, 'bad record frame (length)');
      const block = { bytes: bytes.subarray(0, end), physical, firstIndex: index };
      physical += end;
      index += frames;
      turn ^= 1;
      next = physical < this.dataBytes ? this.readBlock(spare[turn], physical) : undefined;
      next?.catch(() => undefined);
      yield block;
    }
  }

  /** Checks the frame at `at` of a block from dataBlocks(), checksum included: its framed length, or the coded error. */
  checkBlockFrame(block: DataBlock, at: number): number {
    return this.checked(block.bytes, at, block.bytes.length, block.physical + at).framedLength;
  }

  /** The logical offset of the record at `index` of the file, which starts at data offset `physical`. */
  logicalOf(index: number, physical: number): number {
    return this.positionMap ? this.positionMap.entry(index).logical : physical;
  }

  /** Reads data from `physical` into `spare` (or a buffer of its own for a frame longer than it). */
  private async readBlock(spare: Buffer, physical: number): Promise<Buffer> {
    if (this.closed) throw Errors.storageClosed.create(`chunk ${this.path} is closed`);
    const remaining = this.dataBytes - physical;
    if (this.memory) {
      // Served from memory: a turn of the event loop stands in for the read.
      await new Promise((resolve) => setImmediate(resolve));
      return this.memory.subarray(physical, physical + Math.min(spare.length, remaining));
    }
    const block = spare.subarray(0, Math.min(spare.length, remaining));
    await this.readInto(block, physical);
    const framed = block.readUInt32LE(0) + 8;
    if (framed <= block.length || framed > remaining || framed > RECORD_PAYLOAD_BYTES_MAX + 8) return block;
    const longer = Buffer.allocUnsafe(framed);
    await this.readInto(longer, physical);
    return longer;
  }

  private async readInto(block: Buffer, physical: number): Promise<void> {
    for (let done = 0; done < block.length;) {
      const { bytesRead } = await this.handle.read(block, done, block.length - done, CHUNK_HEADER_BYTES + physical + done);
      if (bytesRead === 0) throw Errors.storageCorrupt.create(this.path, physical + done, 'the file ends before its data does');
      done += bytesRead;
    }
  }

  /** The data from `physical` on, a block at a time (a longer one for a frame longer than a block). */
  private dataBlock(physical: number, blockBytes: number): Buffer {
    const remaining = this.dataBytes - physical;
    if (this.memory) return this.memory.subarray(physical, this.dataBytes);
    let length = Math.min(blockBytes, remaining);
    let block = Buffer.allocUnsafe(length);
    readFully(this.handle.fd, block, CHUNK_HEADER_BYTES + physical);
    const framed = block.readUInt32LE(0) + 8;
    if (framed > length && framed <= remaining) {
      length = framed;
      block = Buffer.allocUnsafe(length);
      readFully(this.handle.fd, block, CHUNK_HEADER_BYTES + physical);
    }
    return block;
  }

  /**
   * Recomputes the MD5 of a completed chunk on the hashing thread, which reads the file itself,
   * and compares it with the footer's: the main thread is free meanwhile.
   */
  async verifyHashInThread(): Promise<boolean> {
    if (!this.completed) throw new TypeError('verifyHash on an ongoing chunk');
    const hashedEnd = completedFileBytes(this.dataBytes, this.mapBytes) - CHUNK_HASH_BYTES;
    const digest = await md5OfFile(this.path, hashedEnd);
    const stored = Buffer.alloc(CHUNK_HASH_BYTES);
    const { bytesRead } = await this.handle.read(stored, 0, CHUNK_HASH_BYTES, hashedEnd);
    return bytesRead === CHUNK_HASH_BYTES && digest.equals(stored);
  }

  /**
   * Copies data from data offset `physical` into `target` (the ongoing chunk from memory): the
   * raw bytes a leader ships to a replica. The caller keeps within the data it knows is durable.
   */
  async readData(physical: number, target: Buffer): Promise<void> {
    if (this.closed) throw Errors.storageClosed.create(`chunk ${this.path} is closed`);
    if (this.memory) {
      this.memory.copy(target, 0, physical, physical + target.length);
      return;
    }
    await this.readInto(target, physical);
  }

  /** Reads up to `target.length` bytes of the file from `fileOffset` (a completed chunk shipped whole); returns how many. */
  async readFileBytes(fileOffset: number, target: Buffer): Promise<number> {
    if (this.closed) throw Errors.storageClosed.create(`chunk ${this.path} is closed`);
    return (await this.handle.read(target, 0, target.length, fileOffset)).bytesRead;
  }

  /** The hash a completed chunk's footer holds. */
  async storedHash(): Promise<Buffer> {
    if (!this.completed) throw new TypeError('storedHash on an ongoing chunk');
    const stored = Buffer.alloc(CHUNK_HASH_BYTES);
    const { bytesRead } = await this.handle.read(stored, 0, CHUNK_HASH_BYTES, completedFileBytes(this.dataBytes, this.mapBytes) - CHUNK_HASH_BYTES);
    return stored.subarray(0, bytesRead);
  }

  /** Recomputes the MD5 of a completed chunk and compares it with the footer's. */
  async verifyHash(): Promise<boolean> {
    if (!this.completed) throw new TypeError('verifyHash on an ongoing chunk');
    const size = completedFileBytes(this.dataBytes, this.mapBytes);
    const hash = createHash('md5');
    const block = Buffer.allocUnsafe(HASH_BLOCK_BYTES);
    const hashedEnd = size - CHUNK_HASH_BYTES;
    for (let position = 0; position < hashedEnd; position += HASH_BLOCK_BYTES) {
      if (this.closed) return true;
      const length = Math.min(HASH_BLOCK_BYTES, hashedEnd - position);
      const { bytesRead } = await this.handle.read(block, 0, length, position);
      hash.update(block.subarray(0, bytesRead));
    }
    const stored = Buffer.alloc(CHUNK_HASH_BYTES);
    fileSystem.readSync(this.handle.fd, stored, 0, CHUNK_HASH_BYTES, hashedEnd);
    return hash.digest().equals(stored);
  }

  /**
   * Whether the file holds exactly `expected`: for a file this process has just written, a cheaper
   * proof than its hash that every byte reached the file (the hash was computed over `expected`).
   */
  async holdsBytes(expected: Buffer): Promise<boolean> {
    const size = fstatSync(this.handle.fd).size;
    if (size !== expected.length) return false;
    const block = Buffer.allocUnsafe(HASH_BLOCK_BYTES);
    for (let position = 0; position < size; position += HASH_BLOCK_BYTES) {
      const length = Math.min(HASH_BLOCK_BYTES, size - position);
      const { bytesRead } = await this.handle.read(block, 0, length, position);
      if (bytesRead !== length || !block.subarray(0, length).equals(expected.subarray(position, position + length))) return false;
    }
    return true;
  }

  /**
   * Cuts the chunk back so that it holds `local` bytes of data and is ongoing again (the
   * truncate.chk procedure and discarding an unacknowledged tail).
   */
  truncateTo(local: number): void {
    this.cutAfter(local);
    this.completed = false;
    this.dataBytes = local;
    this.memory = undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.memory = undefined;
    this.hash?.end();
    this.hash = undefined;
    await this.handle.close();
  }
}

/** Where the whole frames at the start of `bytes` end, following their lengths, and how many there are. */
function wholeFrames(bytes: Buffer): { end: number; frames: number } {
  let end = 0;
  let frames = 0;
  while (end + 4 <= bytes.length) {
    const payload = bytes.readUInt32LE(end);
    if (payload < 6 || payload > RECORD_PAYLOAD_BYTES_MAX || end + payload + 8 > bytes.length) break;
    end += payload + 8;
    frames++;
  }
  return { end, frames };
}

function readFully(fd: number, buffer: Buffer, position: number): void {
  for (let done = 0; done < buffer.length;) {
    const read = readData(fd, buffer, done, buffer.length - done, position + done);
    if (read === 0) throw new RangeError(`read past the end of a chunk file at ${position + done}`);
    done += read;
  }
}

/** fsync of a whole file; a failure is fatal, never retried. */
async function syncHandle(handle: FileHandle, path: string): Promise<void> {
  try {
    await handle.sync();
  } catch (error) {
    throw Errors.storageIo.create(path, 'fsync', String(error));
  }
}
