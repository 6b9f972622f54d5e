/**
 * The log as bytes, for a leader that ships it to its replicas: whole completed chunk files as
 * they are on disk (a scavenged or redacted chunk as this node has it), the header of a chunk,
 * and the raw records of a chunk from a position, never past what is durable and never a torn
 * record. Nothing here decodes a record.
 */
import { Errors } from '../../common/errors.js';
import { encodeChunkHeader } from '../log/chunk-format.js';
import { parseChunkFileName } from '../layout.js';
import type { Chunk } from '../log/chunk.js';
import { epochChain, type Epoch } from '../log/epoch.js';
import { FRAME_BYTES } from '../log/record.js';
import type { TransactionLog } from '../log/transaction-log.js';

/** What a shipper needs to know of the chunk that holds a position. */
export interface ChunkFacts {
  startNumber: number;
  endNumber: number;
  /** The version in its file name. */
  version: number;
  completed: boolean;
  /** Rewritten by a scavenge: its records are not at their logical offsets, so it goes whole. */
  mapped: boolean;
  /** Bytes of record data in the file. */
  dataBytes: number;
  /** The size of a completed chunk's file. */
  fileBytes: number;
}

/** A completed chunk file to ship. */
export interface ChunkFileReader {
  facts: ChunkFacts;
  /** Reads up to `target.length` bytes from file offset `offset`; returns how many. */
  read(target: Buffer, offset: number): Promise<number>;
}

/** Epochs a handshake compares at most, newest first. */
export const HANDSHAKE_EPOCHS_MAX = 1000;

export class LogBytes {
  constructor(
    private readonly log: TransactionLog,
    /** The log position of the newest epoch record (epoch.chk). */
    private readonly epochPosition: () => number,
  ) {}

  get chunkSize(): number {
    return this.log.chunkSize;
  }

  /** The log position of the newest epoch record; -1 before the first. */
  get newestEpochPosition(): number {
    return this.epochPosition();
  }

  /** The newest epoch record: one record read (epochs() reads the chain). */
  newestEpoch(): Epoch | undefined {
    return epochChain(this.log, this.epochPosition(), 1)[0];
  }

  /** The end of what is durable and readable. */
  get durableEnd(): number {
    return this.log.readableEnd;
  }

  /** Whether `position` is a place a replica's log may end at: a record start or the end of a chunk's data. */
  isBoundary(position: number): boolean {
    return this.log.isBoundary(position);
  }

  /** The newest epochs of the log, newest first. */
  epochs(countMax = HANDSHAKE_EPOCHS_MAX): Epoch[] {
    return epochChain(this.log, this.epochPosition(), countMax);
  }

  chunkFacts(chunkNumber: number): ChunkFacts | undefined {
    const chunk = this.log.chunkAt(chunkNumber);
    return chunk && factsOf(chunk);
  }

  /** The header of chunk `chunkNumber`, as its file holds it. */
  headerBytes(chunkNumber: number): Buffer {
    const chunk = this.chunkOrThrow(chunkNumber);
    return encodeChunkHeader(chunk.header);
  }

  /** The hash in a completed chunk's footer. */
  async chunkHash(chunkNumber: number): Promise<Buffer> {
    return this.chunkOrThrow(chunkNumber).storedHash();
  }

  /**
   * Whole records from `position` (a record start in a chunk that is not mapped), up to the end
   * of its chunk's data or of the durable log, at most `bytesMax` unless the first record alone
   * is longer. Empty when there is nothing more in that chunk yet.
   */
  async records(position: number, bytesMax: number): Promise<Buffer> {
    const chunkNumber = Math.floor(position / this.chunkSize);
    const chunk = this.chunkOrThrow(chunkNumber);
    if (chunk.isMapped) throw new TypeError('records of a rewritten chunk are shipped as its file');
    const chunkStart = chunk.chunkNumber * this.chunkSize;
    const local = position - chunkStart;
    // Read the limit before the data: what is below it is durable and stays as it is.
    const limit = chunk.isCompleted ? chunk.dataSize : Math.min(this.log.readableEnd - chunkStart, chunk.dataSize);
    const available = limit - local;
    if (available <= 0) return Buffer.alloc(0);
    let bytes = Buffer.allocUnsafe(Math.min(available, bytesMax));
    await chunk.readData(local, bytes);
    let end = wholeFramesEnd(bytes);
    if (end === 0) {
      // One record longer than bytesMax: read it alone.
      const framed = bytes.readUInt32LE(0) + FRAME_BYTES;
      if (framed > available) throw Errors.storageCorrupt.create(chunk.path, local, 'record runs past the durable end');
      bytes = Buffer.allocUnsafe(framed);
      await chunk.readData(local, bytes);
      end = framed;
    }
    return bytes.subarray(0, end);
  }

  /**
   * Completed chunk `chunkNumber`'s file, to ship whole. Read through the chunk's own descriptor:
   * a switch that replaces the chunk meanwhile closes it, and the shipment breaks off rather than
   * mix two versions.
   */
  openChunkFile(chunkNumber: number): ChunkFileReader {
    const chunk = this.chunkOrThrow(chunkNumber);
    if (!chunk.isCompleted) throw new TypeError(`chunk ${chunkNumber} is not completed`);
    return { facts: factsOf(chunk), read: (target, offset) => chunk.readFileBytes(offset, target) };
  }

  private chunkOrThrow(chunkNumber: number): Chunk {
    const chunk = this.log.chunkAt(chunkNumber);
    if (!chunk) throw new RangeError(`chunk ${chunkNumber} is not in the log`);
    return chunk;
  }
}

function factsOf(chunk: Chunk): ChunkFacts {
  return {
    startNumber: chunk.header.startNumber,
    endNumber: chunk.header.endNumber,
    version: parseChunkFileName(chunk.fileName)?.version ?? 0,
    completed: chunk.isCompleted,
    mapped: chunk.isMapped,
    dataBytes: chunk.dataSize,
    fileBytes: chunk.isCompleted ? chunk.fileBytes : 0,
  };
}

/** Where the whole frames at the start of `bytes` end, following their lengths. */
function wholeFramesEnd(bytes: Buffer): number {
  let end = 0;
  while (end + 4 <= bytes.length) {
    const framed = bytes.readUInt32LE(end) + FRAME_BYTES;
    if (end + framed > bytes.length) break;
    end += framed;
  }
  return end;
}
