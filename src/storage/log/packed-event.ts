import { EVENT_FIXED_BYTES, FRAME_BYTES, copyRange, type SelfWritingEvent } from './record.js';
import { readUuid } from './uuid.js';
import type { NewEvent } from './new-event.js';

/** Bytes of an event id in a record and in a packed event. */
export const EVENT_ID_BYTES = 16;

/** Where PackedEvent's id getter lays the id out before reading it as text. */
const ID_SCRATCH = Buffer.alloc(EVENT_ID_BYTES);

/**
 * An event that writes its id, data and metadata straight into the writer's record: what
 * projections emit for every event of the log. The id as text, and data and metadata as
 * Buffers, are made only when something asks for them (an idempotency check, say): for a system
 * projection, a string and two Buffer objects per event cost more than the writer's record.
 * `put*` must write exactly `dataBytes` and `metadataBytes` bytes, which the writer has reserved.
 */
export abstract class PackedEvent implements NewEvent, SelfWritingEvent {
  abstract readonly eventType: string;
  abstract readonly isJson: boolean;
  abstract readonly dataBytes: number;
  abstract readonly metadataBytes: number;

  /** Writes the id's 16 bytes at `at`. */
  abstract putId(target: Buffer, at: number): void;
  abstract putData(target: Buffer, at: number): void;
  abstract putMetadata(target: Buffer, at: number): void;

  get eventId(): string {
    this.putId(ID_SCRATCH, 0);
    return readUuid(ID_SCRATCH, 0);
  }

  get data(): Buffer {
    const data = Buffer.allocUnsafe(this.dataBytes);
    this.putData(data, 0);
    return data;
  }

  get metadata(): Buffer {
    const metadata = Buffer.allocUnsafe(this.metadataBytes);
    this.putMetadata(metadata, 0);
    return metadata;
  }
}

/**
 * A packed event whose id, data and metadata lie one after the other in a block of bytes shared
 * with other events, from which the writer copies them into its record.
 */
export class PackedInBlock extends PackedEvent {
  constructor(
    readonly block: Buffer,
    /** Where the id starts in `block`; data follows it, then metadata. */
    readonly idStart: number,
    readonly dataEnd: number,
    readonly metadataEnd: number,
    readonly eventType: string,
    readonly isJson: boolean,
  ) {
    super();
  }

  get dataStart(): number {
    return this.idStart + EVENT_ID_BYTES;
  }

  get dataBytes(): number {
    return this.dataEnd - this.dataStart;
  }

  get metadataBytes(): number {
    return this.metadataEnd - this.dataEnd;
  }

  putId(target: Buffer, at: number): void {
    copyRange(target, at, this.block, this.idStart, this.dataStart);
  }

  putData(target: Buffer, at: number): void {
    copyRange(target, at, this.block, this.dataStart, this.dataEnd);
  }

  putMetadata(target: Buffer, at: number): void {
    copyRange(target, at, this.block, this.dataEnd, this.metadataEnd);
  }
}

/** Bytes of data and metadata together, without making buffers of a packed event's. */
export function bodyBytes(event: NewEvent): number {
  return event instanceof PackedEvent ? event.dataBytes + event.metadataBytes : event.data.length + event.metadata.length;
}

/** Exact framed size of the record of `event` in `streamName`. */
export function framedEventBytes(streamName: string, event: NewEvent): number {
  return FRAME_BYTES + EVENT_FIXED_BYTES + Buffer.byteLength(streamName) + Buffer.byteLength(event.eventType) + bodyBytes(event);
}
