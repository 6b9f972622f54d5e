import { crc32 } from 'node:zlib';
import { Errors } from '../../common/errors.js';
import { readInt64, writeInt64 } from '../log/int64.js';
import { murmurFinalize } from './stream-hash.js';

/**
 * A bloom filter over 64-bit stream hashes (given as unsigned high and low halves), shared by the
 * per-file index filters and the stream existence filter.
 *
 * Layout, in 64-byte lines (a CPU cache line; a lookup reads one):
 *   line 0       header: u8 format version @0, u32 corruption rebuild count @4, i64 number of bits
 *                @8, u32 crc32 of bytes 0..59 @60
 *   line 1..n    60 bytes of bits, then a u32 checksum of those 60 bytes
 * A line's checksum is crc32(bits) XOR crc32(60 zero bytes), so an all-zero line has checksum 0
 * and a fresh filter can be a sparse file of zeros. A line whose checksum does not match on load
 * is saturated (all ones): the filter then answers "maybe" for the hashes that probe it, which
 * costs a lookup but never hides a stream.
 *
 * Blocked: one hash picks the line, and six probes by double hashing pick bits inside it, so an
 * add or a lookup costs one cache miss instead of six (the existence filter is hundreds of MB).
 * Lines fill unevenly, which costs a little accuracy; about 9 bits per item gives the 2% target.
 */

export const BLOOM_LINE_BYTES = 64;
export const BLOOM_PAGE_BYTES = 4096;
const BITS_BYTES_PER_LINE = 60;
const BITS_PER_LINE = BITS_BYTES_PER_LINE * 8;
const FORMAT_VERSION = 1;
const PROBES = 6;
/**
 * Bits per item for about 2% false positives with 6 probes: (1 - e^(-6/8.6))^6 ≈ 0.02 for an
 * ideal filter, plus a margin for the uneven filling of lines.
 */
const BITS_PER_ITEM = 9.2;
const ZERO_LINE_CRC = crc32(Buffer.alloc(BITS_BYTES_PER_LINE));
const TWO_21 = 0x20_0000;

/** Step sizes coprime to the bits of a line, so the six probes of a key never coincide. */
const STEPS = Array.from({ length: BITS_PER_LINE }, (_, step) => step).filter((step) => gcd(step, BITS_PER_LINE) === 1);

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * Where one stream hash probes: a 53-bit value that picks the line in any filter, and the six bit
 * offsets inside a line. Computed once per lookup and reused for every filter.
 */
export class BloomKey {
  lineHash = 0;
  readonly bits = new Uint16Array(PROBES);

  constructor(high = 0, low = 0) {
    this.set(high, low);
  }

  set(high: number, low: number): this {
    this.lineHash = mix(high, low, 0x2a6c_1f35) * TWO_21 + (mix(high, low, 0x7f4a_7c15) >>> 11);
    const probes = mix(high, low, 0x5bd1_e995);
    // Double hashing inside the line: first + i·step (mod the bits of a line).
    const first = probes % BITS_PER_LINE;
    const step = STEPS[(probes >>> 24) % STEPS.length];
    for (let probe = 0; probe < PROBES; probe++) this.bits[probe] = (first + probe * step) % BITS_PER_LINE;
    return this;
  }
}

/** Murmur3_32 of the 8 bytes (low, high) with `seed`. */
function mix(high: number, low: number, seed: number): number {
  let hash = seed;
  hash = murmurStep(hash, low);
  hash = murmurStep(hash, high);
  return murmurFinalize(hash ^ 8);
}

function murmurStep(hash: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  let h = hash ^ k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function lineChecksum(bytes: Buffer, lineOffset: number): number {
  return (crc32(bytes.subarray(lineOffset, lineOffset + BITS_BYTES_PER_LINE)) ^ ZERO_LINE_CRC) >>> 0;
}

function headerChecksum(bytes: Buffer): number {
  return crc32(bytes.subarray(0, 60));
}

export interface BloomFilterLoad {
  filter: BloomFilter;
  /** Lines whose checksum did not match; they were saturated. */
  corruptLines: number;
}

/** Contiguous 4 KiB pages of the filter. */
export interface PageRun {
  firstPage: number;
  pageCount: number;
}

/** Bytes to write back at `offset`, with the line checksums filled in. */
export interface DirtyRange {
  offset: number;
  bytes: Buffer;
}

export class BloomFilter {
  readonly numBits: number;
  private readonly dataLines: number;
  private readonly bytes: Buffer;
  private rebuildCount: number;
  /** One flag per 4 KiB page, and the pages flagged, when dirty tracking is on. */
  private readonly dirtyFlags: Uint8Array | undefined;
  private dirtyPages: number[] = [];

  private constructor(bytes: Buffer, numBits: number, rebuildCount: number, trackDirty: boolean) {
    this.bytes = bytes;
    this.numBits = numBits;
    this.dataLines = numBits / BITS_PER_LINE;
    this.rebuildCount = rebuildCount;
    this.dirtyFlags = trackDirty ? new Uint8Array(Math.ceil(bytes.length / BLOOM_PAGE_BYTES)) : undefined;
  }

  /** The size in bytes for `items` distinct hashes at about 2% false positives (at least 2 lines). */
  static sizeForItems(items: number): number {
    const dataLines = Math.max(1, Math.ceil((Math.max(0, items) * BITS_PER_ITEM) / BITS_PER_LINE));
    return (dataLines + 1) * BLOOM_LINE_BYTES;
  }

  /** `sizeBytes` is rounded down to whole lines; it must hold the header and one line of bits. */
  static create(sizeBytes: number, options: { trackDirty?: boolean; corruptionRebuildCount?: number } = {}): BloomFilter {
    const lines = Math.floor(sizeBytes / BLOOM_LINE_BYTES);
    if (!Number.isSafeInteger(sizeBytes) || lines < 2) {
      throw new TypeError(`bloom filter size ${sizeBytes} is below ${2 * BLOOM_LINE_BYTES} bytes`);
    }
    const bytes = Buffer.alloc(lines * BLOOM_LINE_BYTES);
    const filter = new BloomFilter(bytes, (lines - 1) * BITS_PER_LINE, options.corruptionRebuildCount ?? 0, options.trackDirty ?? false);
    filter.writeHeader();
    return filter;
  }

  /**
   * Reads a serialized filter. A bad header throws Errors.indexCorrupt (the caller rebuilds or
   * goes without); a bad line is saturated and counted.
   */
  static load(bytes: Buffer, source: string, options: { trackDirty?: boolean } = {}): BloomFilterLoad {
    if (bytes.length < 2 * BLOOM_LINE_BYTES || bytes.length % BLOOM_LINE_BYTES !== 0) {
      throw Errors.indexCorrupt.create(source, `bloom filter size ${bytes.length} is not a whole number of lines`);
    }
    if (bytes.readUInt32LE(60) !== headerChecksum(bytes)) {
      throw Errors.indexCorrupt.create(source, 'bloom filter header checksum mismatch');
    }
    if (bytes[0] !== FORMAT_VERSION) {
      throw Errors.indexCorrupt.create(source, `unknown bloom filter format version ${bytes[0]}`);
    }
    const numBits = readInt64(bytes, 8);
    if (numBits !== (bytes.length / BLOOM_LINE_BYTES - 1) * BITS_PER_LINE) {
      throw Errors.indexCorrupt.create(source, `bloom filter of ${bytes.length} bytes claims ${numBits} bits`);
    }
    const filter = new BloomFilter(bytes, numBits, bytes.readUInt32LE(4), options.trackDirty ?? false);
    const corruptLines = filter.saturateCorruptLines();
    return { filter, corruptLines };
  }

  get sizeBytes(): number {
    return this.bytes.length;
  }

  get corruptionRebuildCount(): number {
    return this.rebuildCount;
  }

  /** Sets the probe bits of a key; returns true when at least one bit was new. */
  add(key: BloomKey): boolean {
    const lineOffset = this.lineOffsetOf(key);
    const bits = key.bits;
    let changed = false;
    for (let probe = 0; probe < PROBES; probe++) {
      const bit = bits[probe];
      const offset = lineOffset + (bit >>> 3);
      const mask = 1 << (bit & 7);
      const current = this.bytes[offset];
      if ((current & mask) === 0) {
        this.bytes[offset] = current | mask;
        changed = true;
      }
    }
    if (changed) this.markDirty(lineOffset);
    return changed;
  }

  /** False means the hash was certainly never added. */
  mightContain(key: BloomKey): boolean {
    const lineOffset = this.lineOffsetOf(key);
    const bits = key.bits;
    for (let probe = 0; probe < PROBES; probe++) {
      const bit = bits[probe];
      if ((this.bytes[lineOffset + (bit >>> 3)] & (1 << (bit & 7))) === 0) return false;
    }
    return true;
  }

  private lineOffsetOf(key: BloomKey): number {
    return ((key.lineHash % this.dataLines) + 1) * BLOOM_LINE_BYTES;
  }

  /** The whole filter with every checksum filled in; the returned buffer is the filter's own. */
  serialize(): Buffer {
    for (let offset = BLOOM_LINE_BYTES; offset < this.bytes.length; offset += BLOOM_LINE_BYTES) {
      this.bytes.writeUInt32LE(lineChecksum(this.bytes, offset), offset + BITS_BYTES_PER_LINE);
    }
    this.writeHeader();
    this.clearDirty();
    return this.bytes;
  }

  /**
   * The pages changed since the last call, as runs of at most `maxPages` contiguous pages, and
   * forgets them. A page changed again later is reported again.
   */
  takeDirtyRuns(maxPages = Number.MAX_SAFE_INTEGER): PageRun[] {
    const flags = this.dirtyFlags;
    if (flags === undefined) throw new TypeError('dirty tracking is off for this bloom filter');
    const pages = this.dirtyPages.sort((a, b) => a - b);
    this.dirtyPages = [];
    const runs: PageRun[] = [];
    for (const page of pages) {
      flags[page] = 0;
      const last = runs[runs.length - 1];
      if (last !== undefined && last.firstPage + last.pageCount === page && last.pageCount < maxPages) last.pageCount++;
      else runs.push({ firstPage: page, pageCount: 1 });
    }
    return runs;
  }

  /**
   * A copy of a run of pages with the line checksums computed in the copy: the caller writes it
   * while new bits keep arriving, and no half-updated line reaches the disk with a stale checksum.
   */
  copyPages(run: PageRun): DirtyRange {
    const start = run.firstPage * BLOOM_PAGE_BYTES;
    const end = Math.min(this.bytes.length, (run.firstPage + run.pageCount) * BLOOM_PAGE_BYTES);
    const copy = Buffer.from(this.bytes.subarray(start, end));
    fillChecksums(copy, start);
    return { offset: start, bytes: copy };
  }

  private saturateCorruptLines(): number {
    let corrupt = 0;
    for (let offset = BLOOM_LINE_BYTES; offset < this.bytes.length; offset += BLOOM_LINE_BYTES) {
      const stored = this.bytes.readUInt32LE(offset + BITS_BYTES_PER_LINE);
      if (stored === lineChecksum(this.bytes, offset)) continue;
      corrupt++;
      this.bytes.fill(0xff, offset, offset + BITS_BYTES_PER_LINE);
      this.bytes.writeUInt32LE(lineChecksum(this.bytes, offset), offset + BITS_BYTES_PER_LINE);
      this.markDirty(offset);
    }
    return corrupt;
  }

  private writeHeader(): void {
    this.bytes.fill(0, 0, BLOOM_LINE_BYTES);
    this.bytes[0] = FORMAT_VERSION;
    this.bytes.writeUInt32LE(this.rebuildCount, 4);
    writeInt64(this.bytes, 8, this.numBits);
    this.bytes.writeUInt32LE(headerChecksum(this.bytes), 60);
    this.markDirty(0);
  }

  /** Marks pages taken by takeDirtyRuns() dirty again, after writing them out failed. */
  restoreDirtyRuns(runs: readonly PageRun[]): void {
    for (const run of runs) {
      for (let page = run.firstPage; page < run.firstPage + run.pageCount; page++) this.markDirty(page * BLOOM_PAGE_BYTES);
    }
  }

  private markDirty(offset: number): void {
    const flags = this.dirtyFlags;
    if (flags === undefined) return;
    const page = Math.floor(offset / BLOOM_PAGE_BYTES);
    if (flags[page] === 0) {
      flags[page] = 1;
      this.dirtyPages.push(page);
    }
  }

  private clearDirty(): void {
    if (this.dirtyFlags === undefined) return;
    this.dirtyFlags.fill(0);
    this.dirtyPages = [];
  }
}

/** Fills the checksums of the data lines in `copy`, which starts at byte `start` of the filter. */
function fillChecksums(copy: Buffer, start: number): void {
  for (let offset = 0; offset < copy.length; offset += BLOOM_LINE_BYTES) {
    if (start + offset === 0) continue;
    copy.writeUInt32LE(lineChecksum(copy, offset), offset + BITS_BYTES_PER_LINE);
  }
}
