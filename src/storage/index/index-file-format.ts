import { readInt64, writeInt64 } from '../log/int64.js';

/**
 * The byte layout of an index file (all integers little-endian):
 *
 *   header    128 B   magic "SVCINDEX" @0, u32 format version @8, u32 level @12, i64 entry count @16,
 *                     u32 entry size @24, u32 midpoint interval @28, zeros
 *   entries   N×24 B  u64 stream hash @0, i64 event number @8, i64 log position @16
 *   midpoints M×24 B  u64 stream hash @0, i64 event number @8, i64 entry index @16
 *   footer    128 B   magic "SVCIXEND" @0, u32 format version @8, i64 entry count @16,
 *                     i64 midpoint count @24, i64 distinct hashes @32, zeros, md5 of all bytes
 *                     before it @112
 *
 * Entries are sorted ASCENDING by (hash, event number, log position), unlike the descending files
 * of the system in reference/storage-engine.md: range() answers in ascending order and the writer
 * and the merge produce ascending order, so both read and write go front to back; a descending
 * walk ("last event of a stream") costs the same, reading the bounded range backwards.
 *
 * A midpoint is copied from every MIDPOINT_INTERVAL-th entry (and the last one), so a lookup
 * binary-searches the midpoints in memory and then reads at most one interval (3 KiB) per bound.
 */

export const HEADER_BYTES = 128;
export const FOOTER_BYTES = 128;
export const ENTRY_BYTES = 24;
export const MIDPOINT_BYTES = 24;
export const FORMAT_VERSION = 1;
export const MIDPOINT_INTERVAL = 128;
const HEADER_MAGIC = 'SVCINDEX';
const FOOTER_MAGIC = 'SVCIXEND';
export const CHECKSUM_OFFSET_IN_FOOTER = 112;
export const CHECKSUM_BYTES = 16;

export interface IndexFileHeader {
  formatVersion: number;
  level: number;
  entryCount: number;
  midpointInterval: number;
}

export interface IndexFileFooter {
  entryCount: number;
  midpointCount: number;
  distinctHashes: number;
}

export function encodeHeader(level: number, entryCount: number): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header.write(HEADER_MAGIC, 0, 'latin1');
  header.writeUInt32LE(FORMAT_VERSION, 8);
  header.writeUInt32LE(level, 12);
  writeInt64(header, 16, entryCount);
  header.writeUInt32LE(ENTRY_BYTES, 24);
  header.writeUInt32LE(MIDPOINT_INTERVAL, 28);
  return header;
}

/** Returns a description of what is wrong, or the header. */
export function decodeHeader(bytes: Buffer): IndexFileHeader | string {
  if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, 8) !== HEADER_MAGIC) return 'bad header magic';
  const formatVersion = bytes.readUInt32LE(8);
  if (formatVersion !== FORMAT_VERSION) return `unknown format version ${formatVersion}`;
  if (bytes.readUInt32LE(24) !== ENTRY_BYTES) return `entry size ${bytes.readUInt32LE(24)} is not ${ENTRY_BYTES}`;
  return {
    formatVersion,
    level: bytes.readUInt32LE(12),
    entryCount: readInt64(bytes, 16),
    midpointInterval: bytes.readUInt32LE(28),
  };
}

/** The footer without its checksum; the writer appends the md5 of everything before it. */
export function encodeFooter(footer: IndexFileFooter): Buffer {
  const bytes = Buffer.alloc(CHECKSUM_OFFSET_IN_FOOTER);
  bytes.write(FOOTER_MAGIC, 0, 'latin1');
  bytes.writeUInt32LE(FORMAT_VERSION, 8);
  writeInt64(bytes, 16, footer.entryCount);
  writeInt64(bytes, 24, footer.midpointCount);
  writeInt64(bytes, 32, footer.distinctHashes);
  return bytes;
}

export function decodeFooter(bytes: Buffer): IndexFileFooter | string {
  if (bytes.length < FOOTER_BYTES || bytes.toString('latin1', 0, 8) !== FOOTER_MAGIC) return 'bad footer magic';
  if (bytes.readUInt32LE(8) !== FORMAT_VERSION) return `unknown footer version ${bytes.readUInt32LE(8)}`;
  return {
    entryCount: readInt64(bytes, 16),
    midpointCount: readInt64(bytes, 24),
    distinctHashes: readInt64(bytes, 32),
  };
}

export function fileSizeFor(entryCount: number, midpointCount: number): number {
  return HEADER_BYTES + entryCount * ENTRY_BYTES + midpointCount * MIDPOINT_BYTES + FOOTER_BYTES;
}

/** How many midpoints a file of `entryCount` entries carries: every interval-th entry and the last. */
export function midpointCountFor(entryCount: number, interval: number = MIDPOINT_INTERVAL): number {
  if (entryCount === 0) return 0;
  return Math.ceil(entryCount / interval) + ((entryCount - 1) % interval === 0 ? 0 : 1);
}

export function writeEntry(bytes: Buffer, offset: number, high: number, low: number, eventNumber: number, logPosition: number): void {
  bytes.writeUInt32LE(low, offset);
  bytes.writeUInt32LE(high, offset + 4);
  writeInt64(bytes, offset + 8, eventNumber);
  writeInt64(bytes, offset + 16, logPosition);
}

export function entryHigh(bytes: Buffer, offset: number): number {
  return bytes.readUInt32LE(offset + 4);
}

export function entryLow(bytes: Buffer, offset: number): number {
  return bytes.readUInt32LE(offset);
}

export function entryEventNumber(bytes: Buffer, offset: number): number {
  return readInt64(bytes, offset + 8);
}

export function entryLogPosition(bytes: Buffer, offset: number): number {
  return readInt64(bytes, offset + 16);
}

/** Sign of (entry at `offset`) − (high, low, eventNumber), ignoring the log position. */
export function compareEntryToKey(bytes: Buffer, offset: number, high: number, low: number, eventNumber: number): number {
  return entryHigh(bytes, offset) - high || entryLow(bytes, offset) - low || entryEventNumber(bytes, offset) - eventNumber;
}
