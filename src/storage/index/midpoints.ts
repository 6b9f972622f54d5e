import { readInt64, writeInt64 } from '../log/int64.js';
import { MIDPOINT_BYTES } from './index-file-format.js';

/**
 * The midpoints of one index file, in memory: the keys (hash, event number) of every
 * interval-th entry and of the last, with their entry indexes. Two binary searches here bound
 * the part of the file a lookup has to read.
 */
export class Midpoints {
  readonly count: number;
  private readonly high: Uint32Array;
  private readonly low: Uint32Array;
  private readonly eventNumber: Float64Array;
  private readonly entryIndex: Float64Array;

  constructor(count: number) {
    this.count = count;
    this.high = new Uint32Array(count);
    this.low = new Uint32Array(count);
    this.eventNumber = new Float64Array(count);
    this.entryIndex = new Float64Array(count);
  }

  static decode(bytes: Buffer, count: number): Midpoints {
    const midpoints = new Midpoints(count);
    for (let index = 0; index < count; index++) {
      const offset = index * MIDPOINT_BYTES;
      midpoints.set(index, bytes.readUInt32LE(offset + 4), bytes.readUInt32LE(offset), readInt64(bytes, offset + 8), readInt64(bytes, offset + 16));
    }
    return midpoints;
  }

  set(index: number, high: number, low: number, eventNumber: number, entryIndex: number): void {
    this.high[index] = high;
    this.low[index] = low;
    this.eventNumber[index] = eventNumber;
    this.entryIndex[index] = entryIndex;
  }

  encode(): Buffer {
    const bytes = Buffer.alloc(this.count * MIDPOINT_BYTES);
    for (let index = 0; index < this.count; index++) {
      const offset = index * MIDPOINT_BYTES;
      bytes.writeUInt32LE(this.low[index], offset);
      bytes.writeUInt32LE(this.high[index], offset + 4);
      writeInt64(bytes, offset + 8, this.eventNumber[index]);
      writeInt64(bytes, offset + 16, this.entryIndex[index]);
    }
    return bytes;
  }

  /** Describes the first problem found (order, indexes), or returns undefined when sound. */
  validate(entryCount: number): string | undefined {
    if (this.count === 0) return entryCount === 0 ? undefined : 'no midpoints';
    if (this.entryIndex[0] !== 0 || this.entryIndex[this.count - 1] !== entryCount - 1) return 'midpoints do not span the entries';
    for (let index = 1; index < this.count; index++) {
      if (this.entryIndex[index] <= this.entryIndex[index - 1]) return `midpoint ${index} is out of order`;
      if (this.compare(index, this.high[index - 1], this.low[index - 1], this.eventNumber[index - 1]) < 0) {
        return `midpoint ${index} key is out of order`;
      }
    }
    return undefined;
  }

  get minHigh(): number {
    return this.high[0];
  }

  get minLow(): number {
    return this.low[0];
  }

  get maxHigh(): number {
    return this.high[this.count - 1];
  }

  get maxLow(): number {
    return this.low[this.count - 1];
  }

  /** Sign of midpoint `index` − (high, low, eventNumber). */
  compare(index: number, high: number, low: number, eventNumber: number): number {
    return this.high[index] - high || this.low[index] - low || this.eventNumber[index] - eventNumber;
  }

  /**
   * The first entry index that can hold a key >= (high, low, eventNumber): the entry of the last
   * midpoint below the key, or 0.
   */
  startFor(high: number, low: number, eventNumber: number): number {
    const first = this.firstAtLeast(high, low, eventNumber);
    return first === 0 ? 0 : this.entryIndex[first - 1];
  }

  /**
   * One past the last entry index that can hold a key <= (high, low, eventNumber): the entry of
   * the first midpoint above the key, or the entry count.
   */
  endAfter(high: number, low: number, eventNumber: number, entryCount: number): number {
    let lowIndex = 0;
    let highIndex = this.count;
    while (lowIndex < highIndex) {
      const middle = (lowIndex + highIndex) >>> 1;
      if (this.compare(middle, high, low, eventNumber) <= 0) lowIndex = middle + 1;
      else highIndex = middle;
    }
    return lowIndex === this.count ? entryCount : this.entryIndex[lowIndex];
  }

  /**
   * One past the last entry index that can hold a key < (high, low, eventNumber): the entry of
   * the first midpoint at or above the key (itself excluded), or the entry count.
   */
  endBefore(high: number, low: number, eventNumber: number, entryCount: number): number {
    const first = this.firstAtLeast(high, low, eventNumber);
    return first === this.count ? entryCount : this.entryIndex[first];
  }

  private firstAtLeast(high: number, low: number, eventNumber: number): number {
    let lowIndex = 0;
    let highIndex = this.count;
    while (lowIndex < highIndex) {
      const middle = (lowIndex + highIndex) >>> 1;
      if (this.compare(middle, high, low, eventNumber) < 0) lowIndex = middle + 1;
      else highIndex = middle;
    }
    return lowIndex;
  }
}
