/**
 * The streams a subscription group reads and writes as the node itself: the subscribed stream
 * (read ahead of any consumer, whose own right to read it is checked when it asks), and the
 * group's checkpoint, parked and config streams. Everything goes through the streams service,
 * as a principal in `$admins`, so the same checks and hooks apply as to any other write.
 */
import { randomUUID } from 'node:crypto';
import type { WriteResult } from '../../storage/streams/write-types.js';
import type { ResolvedEvent, ResolvedPage, ResolvedRead, StreamsService } from '../services/streams.js';
import type { Principal } from '../services/stream-access.js';
import { ADMINS_GROUP } from '../security/user-record.js';
import type { StreamMetadata } from '../../storage/streams/stream-metadata.js';
import type { EventRecord } from '../../storage/log/record.js';

const SYSTEM: Principal = Object.freeze({ name: '$system', groups: Object.freeze([ADMINS_GROUP]) });
const ANY_VERSION = -2;
const LAST = -1;

export interface JsonEvent {
  eventType: string;
  data: string;
  metadata?: string;
  /** False for data that is not JSON (a link's `{n}@{stream}`). */
  isJson?: boolean;
}

export class SystemStreams {
  constructor(private readonly streams: StreamsService) {}

  readForward(streamName: string, from: number, count: number): ResolvedPage {
    return this.streams.readForward(SYSTEM, streamName, from, count, false);
  }

  /** From `from` down; -1 starts at the last event. */
  readBackward(streamName: string, from: number, count: number): ResolvedPage {
    return this.streams.readBackward(SYSTEM, streamName, from, count, false);
  }

  readLast(streamName: string): ResolvedRead {
    return this.streams.readEvent(SYSTEM, streamName, LAST, false);
  }

  readEvent(streamName: string, eventNumber: number): ResolvedRead {
    return this.streams.readEvent(SYSTEM, streamName, eventNumber, false);
  }

  /** The number of the stream's last event; -1 when it has none (or does not exist). */
  lastEventNumber(streamName: string): number {
    const read = this.readLast(streamName);
    return read.status === 'success' ? read.lastEventNumber : -1;
  }

  metadata(streamName: string): StreamMetadata {
    return this.streams.metadataOf(streamName);
  }

  append(streamName: string, events: JsonEvent[], expectedVersion = ANY_VERSION): Promise<WriteResult> {
    return this.streams.append(SYSTEM, streamName, expectedVersion, events.map((event) => ({
      eventId: randomUUID(), eventType: event.eventType, data: Buffer.from(event.data),
      metadata: Buffer.from(event.metadata ?? ''), isJson: event.isJson ?? true,
    })));
  }

  writeMetadata(streamName: string, metadata: Record<string, unknown>): Promise<WriteResult> {
    return this.streams.writeMetadata(SYSTEM, streamName, ANY_VERSION, Buffer.from(JSON.stringify(metadata)), randomUUID());
  }

  /** Soft-deletes `streamName`; a stream that does not exist is left as it is. */
  async delete(streamName: string): Promise<void> {
    if (this.lastEventNumber(streamName) < 0) return;
    await this.streams.deleteStream(SYSTEM, streamName, ANY_VERSION, false);
  }

  /** `record` as `principal` sees it: a link resolved to its target when asked and allowed. */
  resolve(principal: Principal | undefined, record: EventRecord, resolveLinks: boolean): ResolvedEvent {
    return this.streams.resolveEvent(principal, record, resolveLinks);
  }
}
