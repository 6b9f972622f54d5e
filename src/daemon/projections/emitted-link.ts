import { readInt64, writeInt64 } from '../../storage/log/int64.js';
import { EVENT_ID_BYTES, PackedEvent } from '../../storage/log/packed-event.js';
import { copyRange } from '../../storage/log/record.js';
import { UUID_TEXT_BYTES, putUuidText } from '../../storage/log/uuid.js';
import { emittedMetadataBytes, linkDataBytes, putEmittedMetadataEnd, putEmittedMetadataStart, putLinkData } from './emit-text.js';
import { LINK_TYPE } from './system-projections.js';

/** Bytes an EmittedLink keeps in its packer's block: its own id, its cause's, and its cause's position. */
export const LINK_PACKED_BYTES = 2 * EVENT_ID_BYTES + 8;
const POSITION_AT = 2 * EVENT_ID_BYTES;

/**
 * A link a system projection emits (`$>`, data `number@stream`, the runner's metadata), written
 * by the writer straight into its record from the few values it is made of: its id, the id of
 * its cause and the cause's position in 40 bytes of a shared block (a position is no small
 * integer, and in a field it would be an object of its own for the collector to move while the
 * link waits for the writer), the linked event's number and stream. A system projection links
 * every event of the log, and text laid out for it beforehand would only be copied into the record.
 */
export class EmittedLink extends PackedEvent {
  readonly dataBytes: number;
  readonly metadataBytes: number;

  /**
   * `at`: where the link's LINK_PACKED_BYTES are in `block`, its id already there, followed by
   * that of its cause; the cause's position is written here.
   */
  constructor(
    private readonly block: Buffer,
    private readonly at: number,
    position: number,
    private readonly epochText: string,
    private readonly eventNumber: number,
    private readonly streamName: string,
  ) {
    super();
    writeInt64(block, at + POSITION_AT, position);
    this.dataBytes = linkDataBytes(eventNumber, streamName);
    this.metadataBytes = emittedMetadataBytes(epochText, position);
  }

  // The same for every link: on the prototype, not in each of the many objects.
  get eventType(): string {
    return LINK_TYPE;
  }

  get isJson(): boolean {
    return false;
  }

  putId(target: Buffer, at: number): void {
    copyRange(target, at, this.block, this.at, this.at + EVENT_ID_BYTES);
  }

  putData(target: Buffer, at: number): void {
    putLinkData(target, at, this.eventNumber, this.streamName);
  }

  putMetadata(target: Buffer, at: number): void {
    const idAt = putEmittedMetadataStart(target, at, this.epochText, readInt64(this.block, this.at + POSITION_AT));
    putUuidText(target, idAt, this.block, this.at + EVENT_ID_BYTES);
    putEmittedMetadataEnd(target, idAt + UUID_TEXT_BYTES);
  }
}
