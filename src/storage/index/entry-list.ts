/**
 * The entries of one stream in a memory table, ascending by (eventNumber, logPosition), as pairs
 * in blocks of 64-bit floats. A stream can gather hundreds of thousands of entries in one table
 * (a projection's `$ce-` stream takes one for every event of its category). Held in plain arrays
 * they grew by copying into ever larger arrays, each new one fresh memory (on a virtual machine a
 * page fault for every 4 KiB first written) and each old one garbage for the collector: pushing a
 * million entries over ten streams took three times as long as into blocks. A block is filled
 * once and never copied; the first grows by doubling up to a full block, so that the many
 * streams with few events stay small.
 */

const BLOCK_SHIFT = 12;
/** Entries in every block after the first. */
const BLOCK_ENTRIES = 1 << BLOCK_SHIFT;
const OFFSET_MASK = BLOCK_ENTRIES - 1;
/** Entries of a stream's first block at first: with two floats an entry, 64 bytes (the largest typed array V8 keeps on its heap). */
const FIRST_BLOCK_ENTRIES = 4;

export class EntryList {
  private readonly blocks: Float64Array[];
  private entries = 0;
  /** Entries the blocks hold room for. */
  private capacity = FIRST_BLOCK_ENTRIES;

  constructor(eventNumber: number, logPosition: number) {
    this.blocks = [new Float64Array(2 * FIRST_BLOCK_ENTRIES)];
    this.push(eventNumber, logPosition);
  }

  get length(): number {
    return this.entries;
  }

  eventNumber(index: number): number {
    return this.blocks[index >>> BLOCK_SHIFT][(index & OFFSET_MASK) << 1];
  }

  logPosition(index: number): number {
    return this.blocks[index >>> BLOCK_SHIFT][((index & OFFSET_MASK) << 1) + 1];
  }

  /**
   * Adds an entry in order. Appends in order are the rule (a stream's event numbers grow with
   * the log); anything else is inserted in place, moving the entries above it up by one.
   */
  add(eventNumber: number, logPosition: number): void {
    const last = this.entries - 1;
    const lastEventNumber = this.eventNumber(last);
    if (eventNumber > lastEventNumber || (eventNumber === lastEventNumber && logPosition >= this.logPosition(last))) {
      this.push(eventNumber, logPosition);
      return;
    }
    let index = this.lowerBound(eventNumber);
    while (index < this.entries && this.eventNumber(index) === eventNumber && this.logPosition(index) <= logPosition) index++;
    this.push(this.eventNumber(last), this.logPosition(last));
    for (let at = last; at > index; at--) this.set(at, this.eventNumber(at - 1), this.logPosition(at - 1));
    this.set(index, eventNumber, logPosition);
  }

  /** The first index whose event number is >= `eventNumber`. */
  lowerBound(eventNumber: number): number {
    let low = 0;
    let high = this.entries;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.eventNumber(middle) < eventNumber) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private push(eventNumber: number, logPosition: number): void {
    if (this.entries === this.capacity) this.grow();
    this.set(this.entries, eventNumber, logPosition);
    this.entries++;
  }

  private set(index: number, eventNumber: number, logPosition: number): void {
    const block = this.blocks[index >>> BLOCK_SHIFT];
    const at = (index & OFFSET_MASK) << 1;
    block[at] = eventNumber;
    block[at + 1] = logPosition;
  }

  private grow(): void {
    if (this.capacity < BLOCK_ENTRIES) {
      // Only the first block grows, and to a full block at most: block k then starts at entry k * BLOCK_ENTRIES.
      const larger = new Float64Array(4 * this.capacity);
      larger.set(this.blocks[0]);
      this.blocks[0] = larger;
      this.capacity *= 2;
      return;
    }
    this.blocks.push(new Float64Array(2 * BLOCK_ENTRIES));
    this.capacity += BLOCK_ENTRIES;
  }
}

/** The entries of several streams that share a hash, merged in (eventNumber, logPosition) order. */
export function mergeEntryLists(lists: readonly EntryList[]): EntryList {
  if (lists.length === 1) return lists[0];
  const pairs: Array<[number, number]> = [];
  for (const list of lists) {
    for (let index = 0; index < list.length; index++) pairs.push([list.eventNumber(index), list.logPosition(index)]);
  }
  pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged = new EntryList(pairs[0][0], pairs[0][1]);
  for (let index = 1; index < pairs.length; index++) merged.add(pairs[index][0], pairs[index][1]);
  return merged;
}
