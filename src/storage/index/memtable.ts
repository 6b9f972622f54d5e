import { setImmediate } from 'node:timers/promises';
import type { HashParts, HashPartsFunction } from './stream-hash.js';
import { EntryList } from './entry-list.js';
import type { IndexEntry } from './types.js';

const INITIAL_STREAMS = 1024;
/** Sorting this many streams takes long enough to let other work run between passes. */
const YIELD_ABOVE_STREAMS = 50_000;
const hashScratch: HashParts = { high: 0, low: 0 };

/**
 * The newest, mutable part of the index. Appends land here; when it is full it is frozen
 * (nothing is added any more, lookups still search it) until it is written out as an index file.
 *
 * Keyed by stream NAME, so what a lookup finds here is certainly the stream asked for. Streams
 * are numbered in a Map, and their hash and first entry live in typed columns, so adding an event
 * to a new stream allocates nothing but the Map entry: workloads that create a stream per event
 * are common. A stream gets an EntryList of its own from its second entry on.
 */
export class MemTable {
  /** Every log record below this position was added to this table or an older one. */
  endPosition = 0;
  private readonly ids = new Map<string, number>();
  private hashHighs = new Uint32Array(INITIAL_STREAMS);
  private hashLows = new Uint32Array(INITIAL_STREAMS);
  private firstEventNumbers = new Float64Array(INITIAL_STREAMS);
  private firstLogPositions = new Float64Array(INITIAL_STREAMS);
  private readonly lists: Array<EntryList | undefined> = [];
  private count = 0;
  private frozen = false;

  constructor(private readonly hashParts: HashPartsFunction) {}

  get entryCount(): number {
    return this.count;
  }

  get streamCount(): number {
    return this.lists.length;
  }

  get isFrozen(): boolean {
    return this.frozen;
  }

  add(streamName: string, eventNumber: number, logPosition: number): void {
    if (this.frozen) throw new TypeError('add to a frozen memory table');
    const id = this.ids.get(streamName);
    if (id === undefined) this.addStream(streamName, eventNumber, logPosition);
    else this.addEntry(id, eventNumber, logPosition);
    this.count++;
  }

  /** The stream's number in this table, or -1. */
  find(streamName: string): number {
    return this.ids.get(streamName) ?? -1;
  }

  hashHigh(id: number): number {
    return this.hashHighs[id];
  }

  hashLow(id: number): number {
    return this.hashLows[id];
  }

  /** The entries of stream `id`, ascending. */
  entries(id: number): EntryList {
    return this.lists[id] ?? new EntryList(this.firstEventNumbers[id], this.firstLogPositions[id]);
  }

  /** True when stream `id` has exactly one entry (then firstEventNumber/firstLogPosition are it). */
  hasSingleEntry(id: number): boolean {
    return this.lists[id] === undefined;
  }

  firstEventNumber(id: number): number {
    return this.firstEventNumbers[id];
  }

  firstLogPosition(id: number): number {
    return this.firstLogPositions[id];
  }

  /** Appends the entries of stream `id` numbered from..to (inclusive) to `out`, exact. */
  appendRange(id: number, fromEventNumber: number, toEventNumber: number, out: IndexEntry[]): void {
    const list = this.lists[id];
    if (list === undefined) {
      const eventNumber = this.firstEventNumbers[id];
      if (eventNumber >= fromEventNumber && eventNumber <= toEventNumber) {
        out.push({ eventNumber, logPosition: this.firstLogPositions[id], exact: true });
      }
      return;
    }
    for (let index = list.lowerBound(fromEventNumber); index < list.length; index++) {
      const eventNumber = list.eventNumber(index);
      if (eventNumber > toEventNumber) break;
      out.push({ eventNumber, logPosition: list.logPosition(index), exact: true });
    }
  }

  /**
   * The entries of stream `id` below `beforeEventNumber`, highest first, exact. Entries appended
   * while iterating land above the starting point and are not seen.
   */
  *descending(id: number, beforeEventNumber: number): Generator<IndexEntry, void, undefined> {
    const list = this.lists[id];
    if (list === undefined) {
      const eventNumber = this.firstEventNumbers[id];
      if (eventNumber < beforeEventNumber) yield { eventNumber, logPosition: this.firstLogPositions[id], exact: true };
      return;
    }
    for (let index = list.lowerBound(beforeEventNumber) - 1; index >= 0; index--) {
      yield { eventNumber: list.eventNumber(index), logPosition: list.logPosition(index), exact: true };
    }
  }

  freeze(): void {
    this.frozen = true;
  }

  /**
   * Stream numbers sorted by (hashHigh, hashLow), the order of an index file: an LSD radix sort,
   * four passes of 16 bits, yielding to the event loop between passes. A comparison sort of a
   * million streams would hold the event loop for about a second; this holds it for tens of ms.
   */
  async sortedStreamIds(): Promise<Uint32Array> {
    const streams = this.lists.length;
    let source = new Uint32Array(streams);
    for (let id = 0; id < streams; id++) source[id] = id;
    let target = new Uint32Array(streams);
    const counts = new Uint32Array(0x1_0001);
    for (let pass = 0; pass < 4; pass++) {
      if (streams > YIELD_ABOVE_STREAMS) await setImmediate();
      radixPass(pass < 2 ? this.hashLows : this.hashHighs, (pass & 1) * 16, source, target, counts);
      [source, target] = [target, source];
    }
    return source;
  }

  private addStream(streamName: string, eventNumber: number, logPosition: number): void {
    const id = this.lists.length;
    if (id === this.hashHighs.length) this.grow();
    this.hashParts(streamName, hashScratch);
    this.hashHighs[id] = hashScratch.high;
    this.hashLows[id] = hashScratch.low;
    this.firstEventNumbers[id] = eventNumber;
    this.firstLogPositions[id] = logPosition;
    this.lists.push(undefined);
    this.ids.set(streamName, id);
  }

  private addEntry(id: number, eventNumber: number, logPosition: number): void {
    let list = this.lists[id];
    if (list === undefined) {
      list = new EntryList(this.firstEventNumbers[id], this.firstLogPositions[id]);
      this.lists[id] = list;
    }
    list.add(eventNumber, logPosition);
  }

  private grow(): void {
    const capacity = this.hashHighs.length * 2;
    this.hashHighs = grown(this.hashHighs, new Uint32Array(capacity));
    this.hashLows = grown(this.hashLows, new Uint32Array(capacity));
    this.firstEventNumbers = grown(this.firstEventNumbers, new Float64Array(capacity));
    this.firstLogPositions = grown(this.firstLogPositions, new Float64Array(capacity));
  }
}

/** One stable counting-sort pass of `source` into `target` by the 16-bit digit at `shift` of `keys[id]`. */
function radixPass(keys: Uint32Array, shift: number, source: Uint32Array, target: Uint32Array, counts: Uint32Array): void {
  counts.fill(0);
  for (let index = 0; index < source.length; index++) counts[((keys[source[index]] >>> shift) & 0xffff) + 1]++;
  for (let digit = 1; digit <= 0xffff; digit++) counts[digit] += counts[digit - 1];
  for (let index = 0; index < source.length; index++) {
    const id = source[index];
    target[counts[(keys[id] >>> shift) & 0xffff]++] = id;
  }
}

function grown<T extends Uint32Array | Float64Array>(old: T, next: T): T {
  next.set(old);
  return next;
}
