import { readUuid } from './uuid.js';
import type { NewEvent } from './writer.js';

/** Bytes of an event id in a record and in a packed event. */
export const EVENT_ID_BYTES = 16;

/**
 * An event whose id (16 bytes), data and metadata lie one after the other in a block of bytes
 * shared with other events: what projections emit for every event of the log. The writer copies
 * those bytes into its record as they are. The id as text, and data and metadata as Buffer views
 * of the block, are made only when something asks for them (an idempotency check, say): for a
 * system projection, a string and two Buffer objects per event cost more than the writer's record.
 */
export class PackedEvent implements NewEvent {
  constructor(
    readonly block: Buffer,
    /** Where the id starts in `block`; data follows it, then metadata. */
    readonly idStart: number,
    readonly dataEnd: number,
    readonly metadataEnd: number,
    readonly eventType: string,
    readonly isJson: boolean,
  ) {}

  get dataStart(): number {
    return this.idStart + EVENT_ID_BYTES;
  }

  get eventId(): string {
    return readUuid(this.block, this.idStart);
  }

  get data(): Buffer {
    return this.block.subarray(this.dataStart, this.dataEnd);
  }

  get metadata(): Buffer {
    return this.block.subarray(this.dataEnd, this.metadataEnd);
  }
}

/** Bytes of data and metadata together, without making views of a packed event's. */
export function bodyBytes(event: NewEvent): number {
  return event instanceof PackedEvent ? event.metadataEnd - event.dataStart : event.data.length + event.metadata.length;
}
