import { EVENT_ID_BYTES, PackedEvent } from '../../storage/packed-event.js';
import { copyRange } from '../../storage/record.js';
import { UUID_TEXT_BYTES, putUuidText } from '../../storage/uuid.js';
import { emittedMetadataBytes, linkDataBytes, putEmittedMetadataEnd, putEmittedMetadataStart, putLinkData } from './emit-text.js';
import { LINK_TYPE } from './system-projections.js';

/** Bytes an EmittedLink keeps in its packer's block: its own id, then its cause's. */
export const LINK_PACKED_BYTES = 2 * EVENT_ID_BYTES;

/**
 * A link a system projection emits (`$>`, data `number@stream`, the runner's metadata), written
 * by the writer straight into its record from the few values it is made of: its id and the id
 * of its cause in 32 bytes of a shared block, the position of the cause, the linked event's
 * number and stream. A system projection links every event of the log, and text laid out for it
 * beforehand would only be copied into the record.
 */
export class EmittedLink extends PackedEvent {
  readonly dataBytes: number;
  readonly metadataBytes: number;

  /** `at`: where the link's id is in `block`, followed by that of its cause. */
  constructor(
    private readonly block: Buffer,
    private readonly at: number,
    private readonly position: number,
    private readonly epochText: string,
    private readonly eventNumber: number,
    private readonly streamName: string,
  ) {
    super();
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
    const idAt = putEmittedMetadataStart(target, at, this.epochText, this.position);
    putUuidText(target, idAt, this.block, this.at + EVENT_ID_BYTES);
    putEmittedMetadataEnd(target, idAt + UUID_TEXT_BYTES);
  }
}
