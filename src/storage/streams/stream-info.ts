import { LRUCache } from 'lru-cache';
import type { TableIndex } from '../index/table-index.js';
import type { ExistenceFilter } from '../index/existence-filter.js';
import { RecordKind, isJsonEvent, type EventRecord } from '../log/record.js';
import type { TransactionLog } from '../log/transaction-log.js';
import { ReadCounters } from '../log/meters.js';
import {
  EMPTY_METADATA, NO_STREAM, isMetadataStream, metadataStreamOf, originalStreamOf, parseStoredMetadata, type StreamMetadata,
} from './stream-metadata.js';

interface StreamInfo {
  lastEventNumber: number;
  metadata: StreamMetadata | undefined;
}

/**
 * What the writer and readers need to know about a stream: its last event number and its
 * metadata, answered from an LRU cache, then the existence filter ("never existed"), then the
 * index confirmed against the log (hashes collide, so every index entry that did not come from
 * the memory table is checked against the record's stream name).
 */
export class StreamLookup {
  private readonly cache: LRUCache<string, StreamInfo>;

  constructor(
    private readonly log: TransactionLog,
    private readonly index: TableIndex,
    private readonly existence: ExistenceFilter,
    cacheCapacity: number,
    private readonly counters: ReadCounters = new ReadCounters(),
  ) {
    this.cache = new LRUCache({ max: cacheCapacity });
  }

  private info(streamName: string): StreamInfo {
    let info = this.cache.get(streamName);
    if (info) {
      this.counters.streamInfoCacheHits++;
    } else {
      this.counters.streamInfoCacheMisses++;
      info = { lastEventNumber: this.findLastEventNumber(streamName), metadata: undefined };
      this.cache.set(streamName, info);
    }
    return info;
  }

  /** -1 when the stream has no events, DELETED_EVENT_NUMBER when it was hard deleted. */
  lastEventNumber(streamName: string): number {
    return this.info(streamName).lastEventNumber;
  }

  metadata(streamName: string): StreamMetadata {
    const info = this.info(streamName);
    info.metadata ??= this.findMetadata(streamName);
    return info.metadata;
  }

  /** Reads into the cache what a write to `streamName` is decided on (StreamDecider.decide). */
  warmForWrite(streamName: string): void {
    if (isMetadataStream(streamName)) this.lastEventNumber(originalStreamOf(streamName));
    // The metadata lookup takes the stream's last event number and its metadata stream's along.
    this.metadata(streamName);
  }

  private findLastEventNumber(streamName: string): number {
    if (!this.existence.mightExist(streamName)) return NO_STREAM;
    for (const entry of this.index.descending(streamName)) {
      if (entry.exact || this.recordBelongsTo(entry.logPosition, streamName)) return entry.eventNumber;
    }
    return NO_STREAM;
  }

  private findMetadata(streamName: string): StreamMetadata {
    const metadataStream = metadataStreamOf(streamName);
    const last = this.lastEventNumber(metadataStream);
    if (last < 0) return EMPTY_METADATA;
    const record = this.event(metadataStream, last);
    return record ? parseStoredMetadata(record.data, isJsonEvent(record)) : EMPTY_METADATA;
  }

  private recordBelongsTo(position: number, streamName: string): boolean {
    const record = this.log.readRecordIfKept(position);
    const belongs = record?.kind === RecordKind.event && record.streamName === streamName;
    if (!belongs) this.counters.hashCollisions++;
    return belongs;
  }

  /** The event records numbered from..to (inclusive) that exist, ascending, one per number. */
  events(streamName: string, from: number, to: number): EventRecord[] {
    const found: EventRecord[] = [];
    for (const entry of this.index.range(streamName, from, to)) {
      if (found.length > 0 && found[found.length - 1].eventNumber === entry.eventNumber) continue;
      if (entry.logPosition >= this.log.readableEnd) continue;
      // An entry can outlive its record for a while during a scavenge.
      const record = this.log.readRecordIfKept(entry.logPosition);
      if (record?.kind === RecordKind.event && record.streamName === streamName) found.push(record);
    }
    return found;
  }

  event(streamName: string, eventNumber: number): EventRecord | undefined {
    return this.events(streamName, eventNumber, eventNumber)[0];
  }

  /** Forgets every cached stream: record bytes may have changed under them (a chunk was replaced). */
  forgetAll(): void {
    this.cache.clear();
  }

  /** Called once records are durable and indexed. */
  committed(streamName: string, lastEventNumber: number): void {
    const info = this.cache.get(streamName);
    if (info) info.lastEventNumber = lastEventNumber;
    else this.cache.set(streamName, { lastEventNumber, metadata: undefined });
  }

  /** Called when a new metadata event for `streamName` is durable. */
  metadataCommitted(streamName: string, data: Buffer, isJson: boolean): void {
    const info = this.cache.get(streamName);
    if (info) info.metadata = parseStoredMetadata(data, isJson);
  }

  /** Forgets everything (after the index was rebuilt). */
  clear(): void {
    this.cache.clear();
  }
}
