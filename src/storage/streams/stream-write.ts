import { randomUUID } from 'node:crypto';
import type { AppendUnit } from '../log/appender.js';
import { PackedEvent } from '../log/packed-event.js';
import { EventFlags, encodeEventRecord, encodePackedEventRecord, type EventRecordInput } from '../log/record.js';
import type { CommittedWrite, NewEvent } from './write-types.js';

const EMPTY_BYTES = Buffer.alloc(0);

/**
 * Events written to one stream as one transaction: the unit the stream decider hands the log
 * appender. It encodes its event records where the appender says, and is then the committed
 * write the engine indexes and publishes.
 */
export class StreamWrite implements AppendUnit, CommittedWrite {
  readonly lastEventNumber: number;
  /** The log position of each event's record, once encoded. */
  readonly positions: number[] = [];

  constructor(
    readonly streamName: string,
    readonly firstEventNumber: number,
    readonly events: NewEvent[],
    /** Exactly what the records take (framedEventBytes of every event). */
    readonly framedBytes: number,
    /** The commit's time, in every record. */
    private readonly timestamp: number,
    /** The events are a tombstone: the stream is deleted for ever. */
    private readonly streamDelete: boolean,
  ) {
    this.lastEventNumber = firstEventNumber + events.length - 1;
  }

  encode(target: Buffer, offset: number, position: number): number {
    const { events, positions } = this;
    positions.length = 0;
    let cursor = offset;
    // One record object for the whole write, its fields set for each event: one less allocation per record.
    const record: EventRecordInput = {
      logPosition: 0, flags: 0, transactionPosition: position, transactionOffset: 0, eventNumber: 0, timestamp: this.timestamp,
      eventId: '', correlationId: randomUUID(), streamName: this.streamName, eventType: '', data: EMPTY_BYTES, metadata: EMPTY_BYTES,
    };
    for (let i = 0; i < events.length; i++) {
      const event = events[i];
      record.logPosition = position + cursor - offset;
      record.flags = this.flagsFor(event, i);
      record.transactionOffset = i;
      record.eventNumber = this.firstEventNumber + i;
      record.eventType = event.eventType;
      positions.push(record.logPosition);
      if (event instanceof PackedEvent) {
        cursor += encodePackedEventRecord(target, cursor, record, event);
        continue;
      }
      record.eventId = event.eventId;
      record.data = event.data;
      record.metadata = event.metadata;
      cursor += encodeEventRecord(target, cursor, record);
    }
    return cursor - offset;
  }

  private flagsFor(event: NewEvent, index: number): number {
    let flags = EventFlags.data | EventFlags.isCommitted;
    if (index === 0) flags |= EventFlags.transactionBegin;
    if (index === this.events.length - 1) flags |= EventFlags.transactionEnd;
    if (event.isJson) flags |= EventFlags.isJson;
    if (this.streamDelete) flags |= EventFlags.streamDelete;
    return flags;
  }
}
