import { EVENT_ID_BYTES, PackedInBlock, type PackedEvent } from '../../storage/log/packed-event.js';
import { putEventIdBytes, putEventIdText, type EventRecord } from '../../storage/log/record.js';
import { readUuid } from '../../storage/log/uuid.js';
import { emittedMetadataBytes, putEmittedMetadataEnd, putEmittedMetadataStart, putText } from './emit-text.js';
import { EmittedLink, LINK_PACKED_BYTES } from './emitted-link.js';
import type { Emit } from './processor.js';
import { LinkEmit } from './system-projections.js';

/**
 * The bytes of emitted events. A system projection emits a small link for every event of the log,
 * thousands per page, so the ids, data and metadata are written straight into shared blocks, from
 * which the writer copies them into its records (a link's data and metadata it writes itself, see
 * EmittedLink): a string per id and a Buffer per field cost more than the writer's work on the
 * record. The bytes are those the obvious code would make (`emit-bytes.test.ts` compares them).
 */

const SLAB_BYTES = 64 * 1024;

/**
 * Packs the events a projection emits in one epoch into shared blocks of bytes (see PackedEvent);
 * a block lives as long as any event packed into it.
 */
export class EmittedEventPacker {
  private block = Buffer.allocUnsafeSlow(0);
  private used = 0;
  private readonly seed: number;
  private readonly prefixDigits: number;
  private readonly epochText: string;

  /** `prefix`: the emitter's (emitterPrefix) for the projection and `epoch`. */
  constructor(prefix: string, epoch: number) {
    ({ seed: this.seed, digits: this.prefixDigits } = prefixParts(prefix));
    this.epochText = String(epoch);
  }

  /** Room for `bytes` more; a new block when the present one is short of it. */
  private reserve(bytes: number): void {
    if (this.used + bytes <= this.block.length) return;
    this.block = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, bytes));
    this.used = 0;
  }

  /**
   * The `index`th event `emit` makes because of the event at `position`, `causedBy`: its id
   * (emittedEventId), its data as UTF-8 and its metadata, which is `codeMetadata` when the code
   * gave some (the runner's properties already merged in), or else the runner's properties
   * alone, written here. A system projection's link keeps only its id and its cause's here
   * (EmittedLink writes the rest into the record).
   */
  pack(emit: Emit, position: number, index: number, causedBy: Pick<EventRecord, 'eventId'>, codeMetadata: Buffer | undefined): PackedEvent {
    if (emit instanceof LinkEmit && !codeMetadata) return this.packLink(emit, position, index, causedBy);
    const dataBytesMax = 3 * emit.data.length;
    const metadataBytesMax = codeMetadata ? codeMetadata.length : emittedMetadataBytes(this.epochText, position);
    this.reserve(EVENT_ID_BYTES + dataBytesMax + metadataBytesMax);
    const { block } = this;
    const idStart = this.used;
    this.putId(block, idStart, position, index);
    const dataStart = idStart + EVENT_ID_BYTES;
    const dataEnd = putText(block, dataStart, emit.data);
    let metadataEnd: number;
    if (codeMetadata) {
      metadataEnd = dataEnd + codeMetadata.copy(block, dataEnd);
    } else {
      const idAt = putEmittedMetadataStart(block, dataEnd, this.epochText, position);
      metadataEnd = putEmittedMetadataEnd(block, putEventIdText(block, idAt, causedBy));
    }
    this.used = metadataEnd;
    return new PackedInBlock(block, idStart, dataEnd, metadataEnd, emit.eventType, emit.isJson);
  }

  private packLink(link: LinkEmit, position: number, index: number, causedBy: Pick<EventRecord, 'eventId'>): EmittedLink {
    this.reserve(LINK_PACKED_BYTES);
    const { block } = this;
    const at = this.used;
    this.putId(block, at, position, index);
    putEventIdBytes(block, at + EVENT_ID_BYTES, causedBy);
    this.used = at + LINK_PACKED_BYTES;
    return new EmittedLink(block, at, position, this.epochText, link.target.eventNumber, link.target.streamName);
  }

  private putId(block: Buffer, at: number, position: number, index: number): void {
    putEmittedId(block, at, mixedDigits(this.seed, position, index), position, this.prefixDigits, index);
  }
}

/**
 * A deterministic UUID (version 4 layout) for the `index`th event emitted because of the event at
 * `position`: the position and index in full, four digits of the projection's prefix, and in front
 * eight digits mixed from position, index and prefix, because the writer's table of recent ids
 * keys on the first eight (were the prefix left out, the links several projections write for one
 * event would share them, and each append would look its first id up in the log). Computed
 * without hashing: this runs for every event a projection emits. The packer writes the 16 bytes
 * straight into the record's bytes; this is their text.
 */
export function emittedEventId(prefix: string, position: number, index: number): string {
  const id = Buffer.alloc(EVENT_ID_BYTES);
  const { seed, digits } = prefixParts(prefix);
  putEmittedId(id, 0, mixedDigits(seed, position, index), position, digits, index);
  return readUuid(id, 0);
}

/**
 * Whether `eventId` is an id emittedEventId gives the emitter of `prefix` for an event caused by
 * the event at `position`: the index is read back from the id and the id made again from all
 * three. Tells a projection's own emitted events from those others wrote with the same epoch and
 * cause (another projection reacting to the same event, a client copying the metadata).
 */
export function isEmittedEventId(prefix: string, position: number, eventId: string): boolean {
  const hex = eventId.replaceAll('-', '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return false;
  const byte = (at: number) => Number.parseInt(hex.slice(2 * at, 2 * at + 2), 16);
  const index = (byte(14) << 10) | (byte(15) << 2) | ((byte(8) >>> 4) & 3);
  return emittedEventId(prefix, position, index).toLowerCase() === eventId.toLowerCase();
}

/** The parts of an emitter's prefix its ids use: the seed of their mixed digits and four digits of their own. */
function prefixParts(prefix: string): { seed: number; digits: number } {
  return { seed: Number.parseInt(prefix.slice(0, 8), 16), digits: Number.parseInt(prefix.slice(0, 4), 16) };
}

/** The first eight digits of an emitted id. */
function mixedDigits(seed: number, position: number, index: number): number {
  // The low 32 bits: `>>> 0` takes them exactly (positions are integers), where `%` calls into the C library.
  const low = position >>> 0;
  return Math.imul((low ^ seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0, 0x85ebca6b) >>> 0;
}

/**
 * The 16 bytes of an emitted id, `MMMMMMMM-PPPP-4PPP-VPPP-PPPPXXXXIIII` in text: M the mixed
 * digits, P the position's 14 hex digits, V the variant with the index's low two bits, X the
 * projection's prefix digits and I the rest of the index.
 */
function putEmittedId(block: Buffer, at: number, mixed: number, position: number, prefix: number, index: number): void {
  const low = position >>> 0;
  const high = Math.floor(position / 0x1_0000_0000);
  block.writeUInt32BE(mixed >>> 0, at);
  block[at + 4] = (high >>> 16) & 0xff;
  block[at + 5] = (high >>> 8) & 0xff;
  block[at + 6] = 0x40 | ((high >>> 4) & 0x0f);
  block[at + 7] = ((high & 0x0f) << 4) | (low >>> 28);
  block[at + 8] = 0x80 | ((index & 3) << 4) | ((low >>> 24) & 0x0f);
  block[at + 9] = (low >>> 16) & 0xff;
  block[at + 10] = (low >>> 8) & 0xff;
  block[at + 11] = low & 0xff;
  block[at + 12] = (prefix >>> 8) & 0xff;
  block[at + 13] = prefix & 0xff;
  block[at + 14] = (index >>> 10) & 0xff;
  block[at + 15] = (index >>> 2) & 0xff;
}
