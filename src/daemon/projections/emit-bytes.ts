import { EVENT_ID_BYTES, PackedEvent } from '../../storage/packed-event.js';
import { putEventIdText, type EventRecord } from '../../storage/record.js';
import { UUID_TEXT_BYTES, readUuid } from '../../storage/uuid.js';
import type { Emit } from './processor.js';
import { LinkEmit } from './system-projections.js';

/** Digits of the largest event number. */
const EVENT_NUMBER_DIGITS_MAX = 16;

/**
 * The bytes of emitted events. A system projection emits a small link for every event of the log,
 * thousands per page, so the ids, data and metadata are written straight into shared blocks, from
 * which the writer copies them into its records: a string per id and a Buffer per field cost more
 * than the writer's work on the record. The bytes are those the obvious code would make
 * (`emit-bytes.test.ts` compares them).
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
   * alone, written here.
   */
  pack(emit: Emit, position: number, index: number, causedBy: Pick<EventRecord, 'eventId'>, codeMetadata: Buffer | undefined): PackedEvent {
    const link = emit instanceof LinkEmit ? emit.target : undefined;
    const dataBytesMax = link ? EVENT_NUMBER_DIGITS_MAX + 1 + 3 * link.streamName.length : 3 * emit.data.length;
    const metadataBytesMax = codeMetadata ? codeMetadata.length : METADATA_FIXED_BYTES + 3 * this.epochText.length + 2 * 16 + UUID_TEXT_BYTES;
    this.reserve(EVENT_ID_BYTES + dataBytesMax + metadataBytesMax);
    const { block } = this;
    const idStart = this.used;
    putEmittedId(block, idStart, mixedDigits(this.seed, position, index), position, this.prefixDigits, index);
    const dataStart = idStart + EVENT_ID_BYTES;
    const dataEnd = link ? putLinkData(block, dataStart, link.eventNumber, link.streamName) : putText(block, dataStart, emit.data);
    const metadataEnd = codeMetadata ? dataEnd + codeMetadata.copy(block, dataEnd) : putEmittedMetadata(block, dataEnd, this.epochText, position, causedBy);
    this.used = metadataEnd;
    return new PackedEvent(block, idStart, dataEnd, metadataEnd, emit.eventType, emit.isJson);
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

/** The parts of an emitter's prefix its ids use: the seed of their mixed digits and four digits of their own. */
function prefixParts(prefix: string): { seed: number; digits: number } {
  return { seed: Number.parseInt(prefix.slice(0, 8), 16), digits: Number.parseInt(prefix.slice(0, 4), 16) };
}

/** The first eight digits of an emitted id. */
function mixedDigits(seed: number, position: number, index: number): number {
  const low = position % 0x1_0000_0000;
  return Math.imul((low ^ seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0, 0x85ebca6b) >>> 0;
}

/**
 * The metadata of an emitted event without metadata of its own:
 * `{"$v":"epoch","$c":position,"$p":position,"$causedBy":"eventId"}`.
 */
function putEmittedMetadata(block: Buffer, start: number, epochText: string, position: number, causedBy: Pick<EventRecord, 'eventId'>): number {
  let at = putBytes(block, start, METADATA_V);
  at = putText(block, at, epochText);
  at = putBytes(block, at, METADATA_C);
  const digitsAt = at;
  at = putDecimal(block, at, position);
  const digitsEnd = at;
  at = putBytes(block, at, METADATA_P);
  for (let i = digitsAt; i < digitsEnd; i++) block[at++] = block[i];
  at = putBytes(block, at, METADATA_CAUSED_BY);
  at = putEventIdText(block, at, causedBy);
  return putBytes(block, at, METADATA_END);
}

/** A link's data, `number@stream`. */
function putLinkData(block: Buffer, at: number, eventNumber: number, streamName: string): number {
  const numberEnd = putDecimal(block, at, eventNumber);
  block[numberEnd] = AT_SIGN;
  return putText(block, numberEnd + 1, streamName);
}

const AT_SIGN = 0x40;

const METADATA_V = Buffer.from('{"$v":"', 'latin1');
const METADATA_C = Buffer.from('","$c":', 'latin1');
const METADATA_P = Buffer.from(',"$p":', 'latin1');
const METADATA_CAUSED_BY = Buffer.from(',"$causedBy":"', 'latin1');
const METADATA_END = Buffer.from('"}', 'latin1');
const METADATA_FIXED_BYTES = METADATA_V.length + METADATA_C.length + METADATA_P.length + METADATA_CAUSED_BY.length + METADATA_END.length;

/** Byte by byte: for a few bytes a loop beats the call into native code. */
function putBytes(target: Buffer, at: number, bytes: Buffer): number {
  for (let i = 0; i < bytes.length; i++) target[at + i] = bytes[i];
  return at + bytes.length;
}

/** A short text, ASCII by a loop (ids, numbers), anything else as UTF-8 by the Buffer. */
function putText(target: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return at + target.write(text, at, 'utf8');
    target[at + i] = code;
  }
  return at + text.length;
}

/** A non-negative integer (up to 2^53) in decimal; in small-integer arithmetic below 2^30. */
function putDecimal(target: Buffer, at: number, value: number): number {
  if (value >= 0x4000_0000) return putText(target, at, String(value));
  let rest = value | 0;
  let digits = 1;
  for (let left = rest; left >= 10; left = (left / 10) | 0) digits++;
  for (let i = digits - 1; i >= 0; i--) {
    const tenth = (rest / 10) | 0;
    target[at + i] = 0x30 + rest - tenth * 10;
    rest = tenth;
  }
  return at + digits;
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
