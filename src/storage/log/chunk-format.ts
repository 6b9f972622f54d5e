import { randomUUID } from 'node:crypto';
import { readInt64, writeInt64 } from './int64.js';
import { readUuid, writeUuid } from './uuid.js';

/**
 * Chunk file layout: [header 128][records][zero padding to a 4 KiB multiple][footer 128].
 * An ongoing chunk is preallocated to its full size and has an all-zero footer area; a
 * completed one is cut to its aligned size and carries a footer with an MD5 of every byte of
 * the file before the hash itself.
 */

export const CHUNK_HEADER_BYTES = 128;
export const CHUNK_FOOTER_BYTES = 128;
export const CHUNK_FILE_TYPE = 2;
export const CHUNK_FORMAT_VERSION = 1;
export const CHUNK_MAGIC = 'SVCDBCHK';
/** The MD5 of a completed chunk: the last bytes of its footer, so of its file. */
export const CHUNK_HASH_BYTES = 16;
const FOOTER_HASH_OFFSET = CHUNK_FOOTER_BYTES - CHUNK_HASH_BYTES;
export const FOOTER_HASHED_BYTES = FOOTER_HASH_OFFSET;
const FOOTER_COMPLETED = 0x01;
const FOOTER_MAP_12_BYTES = 0x02;

export interface ChunkHeader {
  chunkSize: number;
  startNumber: number;
  endNumber: number;
  isScavenged: boolean;
  chunkId: string;
}

export interface ChunkFooter {
  isCompleted: boolean;
  physicalDataSize: number;
  logicalDataSize: number;
  mapSize: number;
  hash: Buffer;
}

export function align4K(bytes: number): number {
  return Math.ceil(bytes / 4096) * 4096;
}

/** The size of a preallocated ongoing chunk file. */
export function ongoingFileBytes(chunkSize: number): number {
  return align4K(CHUNK_HEADER_BYTES + chunkSize + CHUNK_FOOTER_BYTES);
}

/** The size of a completed chunk file holding `dataBytes` of records and a position map of `mapBytes`. */
export function completedFileBytes(dataBytes: number, mapBytes = 0): number {
  return align4K(CHUNK_HEADER_BYTES + dataBytes + mapBytes + CHUNK_FOOTER_BYTES);
}

export function newChunkHeader(chunkSize: number, chunkNumber: number): ChunkHeader {
  return { chunkSize, startNumber: chunkNumber, endNumber: chunkNumber, isScavenged: false, chunkId: randomUUID() };
}

export function encodeChunkHeader(header: ChunkHeader): Buffer {
  const buffer = Buffer.alloc(CHUNK_HEADER_BYTES);
  buffer[0] = CHUNK_FILE_TYPE;
  buffer[1] = CHUNK_FORMAT_VERSION;
  buffer.writeUInt32LE(header.chunkSize, 2);
  buffer.writeUInt32LE(header.startNumber, 6);
  buffer.writeUInt32LE(header.endNumber, 10);
  buffer.writeUInt32LE(header.isScavenged ? 1 : 0, 14);
  writeUuid(buffer, 18, header.chunkId);
  buffer[34] = CHUNK_FORMAT_VERSION;
  buffer[35] = 0;
  buffer.write(CHUNK_MAGIC, 36, 'latin1');
  return buffer;
}

/** Returns the header, or a description of what is wrong with it. */
export function decodeChunkHeader(buffer: Buffer): ChunkHeader | string {
  if (buffer.length < CHUNK_HEADER_BYTES) return 'file shorter than a chunk header';
  if (buffer[0] !== CHUNK_FILE_TYPE || buffer.toString('latin1', 36, 44) !== CHUNK_MAGIC) return 'not a chunk file';
  if (buffer[1] !== CHUNK_FORMAT_VERSION) return `unsupported chunk format version ${buffer[1]}`;
  const header = {
    chunkSize: buffer.readUInt32LE(2),
    startNumber: buffer.readUInt32LE(6),
    endNumber: buffer.readUInt32LE(10),
    isScavenged: buffer.readUInt32LE(14) !== 0,
    chunkId: readUuid(buffer, 18),
  };
  if (header.chunkSize === 0 || header.endNumber < header.startNumber) return 'header fields out of range';
  return header;
}

/** Encodes the footer without its hash; the caller hashes these bytes and then sets the hash. */
export function encodeChunkFooter(footer: Omit<ChunkFooter, 'hash'>): Buffer {
  const buffer = Buffer.alloc(CHUNK_FOOTER_BYTES);
  buffer[0] = (footer.isCompleted ? FOOTER_COMPLETED : 0) | FOOTER_MAP_12_BYTES;
  buffer.writeUInt32LE(footer.physicalDataSize, 1);
  writeInt64(buffer, 5, footer.logicalDataSize);
  buffer.writeUInt32LE(footer.mapSize, 13);
  return buffer;
}

export function setFooterHash(footer: Buffer, hash: Buffer): void {
  hash.copy(footer, FOOTER_HASH_OFFSET);
}

export function decodeChunkFooter(buffer: Buffer): ChunkFooter {
  return {
    isCompleted: (buffer[0] & FOOTER_COMPLETED) !== 0,
    physicalDataSize: buffer.readUInt32LE(1),
    logicalDataSize: readInt64(buffer, 5),
    mapSize: buffer.readUInt32LE(13),
    hash: Buffer.from(buffer.subarray(FOOTER_HASH_OFFSET, FOOTER_HASH_OFFSET + CHUNK_HASH_BYTES)),
  };
}

// A chunk's file name is declared with every other name of a data directory, in layout.ts.
export { chunkFileName, parseChunkFileName } from '../layout.js';
