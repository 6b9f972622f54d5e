import type { HashParts, HashPartsFunction } from '../stream-hash.js';
import type { IndexEntry } from './types.js';

/**
 * The entries of one stream in a memory table, ascending by (eventNumber, logPosition). Keyed by
 * the stream NAME, so what a lookup finds here is certainly the stream asked for.
 */
export interface MemStream {
  readonly name: string;
  readonly hashHigh: number;
  readonly hashLow: number;
  readonly eventNumbers: number[];
  readonly logPositions: number[];
}

const hashScratch: HashParts = { high: 0, low: 0 };

/**
 * The newest, mutable part of the index. Appends land here; when it is full it is frozen
 * (nothing is added any more, lookups still search it) until it is written out as an index file.
 */
export class MemTable {
  /** Every log record below this position was added to this table or an older one. */
  endPosition = 0;
  private readonly streams = new Map<string, MemStream>();
  private count = 0;
  private frozen = false;

  constructor(private readonly hashParts: HashPartsFunction) {}

  get entryCount(): number {
    return this.count;
  }

  get streamCount(): number {
    return this.streams.size;
  }

  get isFrozen(): boolean {
    return this.frozen;
  }

  add(streamName: string, eventNumber: number, logPosition: number): void {
    if (this.frozen) throw new TypeError('add to a frozen memory table');
    let stream = this.streams.get(streamName);
    if (stream === undefined) {
      this.hashParts(streamName, hashScratch);
      stream = {
        name: streamName,
        hashHigh: hashScratch.high,
        hashLow: hashScratch.low,
        eventNumbers: [eventNumber],
        logPositions: [logPosition],
      };
      this.streams.set(streamName, stream);
    } else {
      insertEntry(stream, eventNumber, logPosition);
    }
    this.count++;
  }

  get(streamName: string): MemStream | undefined {
    return this.streams.get(streamName);
  }

  freeze(): void {
    this.frozen = true;
  }

  /**
   * The streams grouped by hash, groups ascending by (hashHigh, hashLow): the order of an index
   * file. A group has more than one stream only when names collide.
   */
  sortedGroups(): MemStream[][] {
    const sorted = [...this.streams.values()].sort(compareStreamHashes);
    const groups: MemStream[][] = [];
    for (const stream of sorted) {
      const last = groups[groups.length - 1];
      if (last !== undefined && compareStreamHashes(last[0]!, stream) === 0) last.push(stream);
      else groups.push([stream]);
    }
    return groups;
  }
}

function compareStreamHashes(a: MemStream, b: MemStream): number {
  return a.hashHigh - b.hashHigh || a.hashLow - b.hashLow;
}

/**
 * Appends in order are the rule (a stream's event numbers grow with the log); anything else is
 * inserted in place so the arrays stay sorted.
 */
function insertEntry(stream: MemStream, eventNumber: number, logPosition: number): void {
  const eventNumbers = stream.eventNumbers;
  const logPositions = stream.logPositions;
  const last = eventNumbers.length - 1;
  const lastEventNumber = eventNumbers[last]!;
  if (eventNumber > lastEventNumber || (eventNumber === lastEventNumber && logPosition >= logPositions[last]!)) {
    eventNumbers.push(eventNumber);
    logPositions.push(logPosition);
    return;
  }
  let index = lowerBound(eventNumbers, eventNumber);
  while (index < eventNumbers.length && eventNumbers[index] === eventNumber && logPositions[index]! <= logPosition) index++;
  eventNumbers.splice(index, 0, eventNumber);
  logPositions.splice(index, 0, logPosition);
}

/** The first index whose event number is >= `eventNumber`. */
export function lowerBound(eventNumbers: readonly number[], eventNumber: number): number {
  let low = 0;
  let high = eventNumbers.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (eventNumbers[middle]! < eventNumber) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Appends the entries numbered from..to (inclusive) to `out`, exact (found by name). */
export function appendRange(stream: MemStream, fromEventNumber: number, toEventNumber: number, out: IndexEntry[]): void {
  const eventNumbers = stream.eventNumbers;
  const logPositions = stream.logPositions;
  for (let index = lowerBound(eventNumbers, fromEventNumber); index < eventNumbers.length; index++) {
    const eventNumber = eventNumbers[index]!;
    if (eventNumber > toEventNumber) break;
    out.push({ eventNumber, logPosition: logPositions[index]!, exact: true });
  }
}

/** The entries of several streams that share a hash, merged in (eventNumber, logPosition) order. */
export function mergeStreamEntries(group: readonly MemStream[]): { eventNumbers: number[]; logPositions: number[] } {
  if (group.length === 1) return group[0]!;
  const pairs: Array<[number, number]> = [];
  for (const stream of group) {
    for (let index = 0; index < stream.eventNumbers.length; index++) {
      pairs.push([stream.eventNumbers[index]!, stream.logPositions[index]!]);
    }
  }
  pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return { eventNumbers: pairs.map((pair) => pair[0]), logPositions: pairs.map((pair) => pair[1]) };
}
