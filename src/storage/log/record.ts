import { crc32Of } from './crc32.js';
import { readInt64, writeInt64 } from './int64.js';
import { RecentStrings } from './recent-strings.js';
import { UUID_TEXT_BYTES, putUuidText, readUuid, writeUuid } from './uuid.js';

/**
 * Log records. On disk each record is framed `u32 length | payload | u32 length` so the log can
 * be walked both ways. The payload starts with a CRC-32 of everything after it, verified on
 * every read:
 *
 *   0 u32 crc32 | 4 u8 kind | 5 u8 version | 6 i64 logPosition | kind-specific fields
 *
 * Event record fields: 14 u16 flags | 16 i64 transactionPosition | 24 i32 transactionOffset |
 *   28 i64 eventNumber | 36 i64 timestamp (ms since the Unix epoch) | 44 eventId[16] |
 *   60 correlationId[16] | 76 u16+utf8 stream | u16+utf8 eventType | u32+data | u32+metadata
 * System record fields: 14 i64 timestamp | 22 u8 systemKind | 23 u32+data (JSON)
 */

export const RecordKind = { event: 0, system: 2 } as const;
export const SystemKind = { epoch: 1 } as const;
export const RECORD_VERSION = 1;

export const EventFlags = {
  data: 0x01,
  transactionBegin: 0x02,
  transactionEnd: 0x04,
  streamDelete: 0x08,
  isCommitted: 0x20,
  isJson: 0x100,
  isRedacted: 0x200,
} as const;

/** Event number of a hard-delete tombstone: no real event can have it. */
export const DELETED_EVENT_NUMBER = Number.MAX_SAFE_INTEGER;

/** Bytes of framing around a payload: a length before and after. */
export const FRAME_BYTES = 8;
/** Where a record's log position lies in its frame (after the length, checksum, kind and version). */
export const FRAME_LOG_POSITION_OFFSET = 4 + 6;
/** A payload may not exceed this; the header of a chunk plus one maximal record still fits. */
export const RECORD_PAYLOAD_BYTES_MAX = 16 * 1024 * 1024 - 10_000;
/** Payload bytes of an event record besides its stream name, event type, data and metadata. */
export const EVENT_FIXED_BYTES = 76 + 2 + 2 + 4 + 4;
const SYSTEM_FIXED_BYTES = 23 + 4;

export interface EventRecord {
  kind: typeof RecordKind.event;
  logPosition: number;
  flags: number;
  transactionPosition: number;
  transactionOffset: number;
  eventNumber: number;
  timestamp: number;
  eventId: string;
  correlationId: string;
  streamName: string;
  eventType: string;
  data: Buffer;
  metadata: Buffer;
}

export interface SystemRecord {
  kind: typeof RecordKind.system;
  logPosition: number;
  timestamp: number;
  systemKind: number;
  data: Buffer;
}

export type LogRecord = EventRecord | SystemRecord;

export type EventRecordInput = Omit<EventRecord, 'kind'>;

/** Upper bound of the framed size of an event record, for sizing buffers before encoding. */
export function eventRecordBytesMax(streamName: string, eventType: string, data: Buffer, metadata: Buffer): number {
  return FRAME_BYTES + EVENT_FIXED_BYTES + 3 * (streamName.length + eventType.length) + data.length + metadata.length;
}

function sealFrame(buffer: Buffer, start: number, payloadEnd: number): number {
  const payloadLength = payloadEnd - start - 4;
  buffer.writeUInt32LE(payloadLength, start);
  buffer.writeUInt32LE(crc32Of(buffer, start + 8, payloadEnd), start + 4);
  buffer.writeUInt32LE(payloadLength, payloadEnd);
  return payloadEnd + 4 - start;
}

/** Up to this many characters or bytes, a loop in JavaScript beats a call into native code. */
const SHORT_COPY_MAX = 64;

function writeShortString(buffer: Buffer, offset: number, text: string): number {
  const start = offset + 2;
  // Stream names and event types are short and nearly always ASCII: copied by a loop, falling
  // back on the UTF-8 encoder at the first character that is not.
  if (text.length <= SHORT_COPY_MAX) {
    let i = 0;
    for (; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code >= 0x80) break;
      buffer[start + i] = code;
    }
    if (i === text.length) {
      buffer.writeUInt16LE(i, offset);
      return start + i;
    }
  }
  const length = buffer.write(text, start, 'utf8');
  buffer.writeUInt16LE(length, offset);
  return start + length;
}

/** Copies source[start, end) to target at `at`: a loop for a few bytes, TypedArray.set for more. */
export function copyRange(target: Buffer, at: number, source: Buffer, start: number, end: number): void {
  if (end - start <= SHORT_COPY_MAX) {
    for (let i = start; i < end; i++) target[at + i - start] = source[i];
  } else {
    // TypedArray.set is cheaper than Buffer.copy for the payloads most events carry.
    target.set(start === 0 && end === source.length ? source : source.subarray(start, end), at);
  }
}

/** Writes `source` with its length before it. */
function writeBytes(buffer: Buffer, offset: number, source: Buffer): number {
  buffer.writeUInt32LE(source.length, offset);
  copyRange(buffer, offset + 4, source, 0, source.length);
  return offset + 4 + source.length;
}

/**
 * The tombstone's event number is 9223372036854775807 on disk, as the wire protocol shows it; in
 * memory it is DELETED_EVENT_NUMBER, the largest number JavaScript holds exactly.
 */
function writeEventNumber(buffer: Buffer, offset: number, eventNumber: number): void {
  if (eventNumber !== DELETED_EVENT_NUMBER) {
    writeInt64(buffer, offset, eventNumber);
    return;
  }
  buffer.writeUInt32LE(0xffff_ffff, offset);
  buffer.writeUInt32LE(0x7fff_ffff, offset + 4);
}

function readEventNumber(buffer: Buffer, offset: number): number {
  if (buffer.readUInt32LE(offset + 4) === 0x7fff_ffff && buffer.readUInt32LE(offset) === 0xffff_ffff) return DELETED_EVENT_NUMBER;
  return readInt64(buffer, offset);
}

/** The fields of an event record other than its id and bodies, which the two encoders below take each their way. */
export type EventRecordFields = Omit<EventRecordInput, 'eventId' | 'data' | 'metadata'>;

/** The correlation id last written, and its bytes: the records of one write all carry the same. */
const lastCorrelation = { text: '', bytes: Buffer.alloc(16) };

function writeCorrelationId(buffer: Buffer, offset: number, correlationId: string): void {
  const { bytes } = lastCorrelation;
  if (correlationId !== lastCorrelation.text) {
    writeUuid(bytes, 0, correlationId);
    lastCorrelation.text = correlationId;
  }
  copyRange(buffer, offset, bytes, 0, bytes.length);
}

/** Writes the fields before the id at `p` (the payload's start) and the names after it; returns where the data goes. */
function encodeEventFields(buffer: Buffer, p: number, record: EventRecordFields): number {
  buffer[p + 4] = RecordKind.event;
  buffer[p + 5] = RECORD_VERSION;
  writeInt64(buffer, p + 6, record.logPosition);
  buffer.writeUInt16LE(record.flags, p + 14);
  writeInt64(buffer, p + 16, record.transactionPosition);
  buffer.writeInt32LE(record.transactionOffset, p + 24);
  writeEventNumber(buffer, p + 28, record.eventNumber);
  writeInt64(buffer, p + 36, record.timestamp);
  writeCorrelationId(buffer, p + 60, record.correlationId);
  const offset = writeShortString(buffer, p + 76, record.streamName);
  return writeShortString(buffer, offset, record.eventType);
}

/**
 * Encodes a framed event record into `buffer` at `start` and returns the framed length. The
 * buffer must have room for eventRecordBytesMax(...).
 */
export function encodeEventRecord(buffer: Buffer, start: number, record: EventRecordInput): number {
  let offset = encodeEventFields(buffer, start + 4, record);
  writeUuid(buffer, start + 4 + 44, record.eventId);
  offset = writeBytes(buffer, offset, record.data);
  offset = writeBytes(buffer, offset, record.metadata);
  return sealFrame(buffer, start, offset);
}

/**
 * An event that writes its own id, data and metadata into a record (packed-event.ts's
 * PackedEvent: bytes a client sent, copied without being decoded first).
 */
export interface SelfWritingEvent {
  readonly dataBytes: number;
  readonly metadataBytes: number;
  putId(target: Buffer, offset: number): void;
  putData(target: Buffer, offset: number): void;
  putMetadata(target: Buffer, offset: number): void;
}

/** encodeEventRecord for an event that writes its own id, data and metadata. */
export function encodePackedEventRecord(buffer: Buffer, start: number, record: EventRecordFields, event: SelfWritingEvent): number {
  let offset = encodeEventFields(buffer, start + 4, record);
  event.putId(buffer, start + 4 + 44);
  const { dataBytes, metadataBytes } = event;
  buffer.writeUInt32LE(dataBytes, offset);
  event.putData(buffer, offset + 4);
  offset += 4 + dataBytes;
  buffer.writeUInt32LE(metadataBytes, offset);
  event.putMetadata(buffer, offset + 4);
  return sealFrame(buffer, start, offset + 4 + metadataBytes);
}

export function encodeSystemRecord(logPosition: number, timestamp: number, systemKind: number, data: Buffer): Buffer {
  const buffer = Buffer.alloc(FRAME_BYTES + SYSTEM_FIXED_BYTES + data.length);
  const p = 4;
  buffer[p + 4] = RecordKind.system;
  buffer[p + 5] = RECORD_VERSION;
  writeInt64(buffer, p + 6, logPosition);
  writeInt64(buffer, p + 14, timestamp);
  buffer[p + 22] = systemKind;
  const end = writeBytes(buffer, p + 23, data);
  sealFrame(buffer, 0, end);
  return buffer;
}

/** Why a frame could not be decoded; the caller turns it into a coded error with file and position. */
export type FrameProblem = 'length' | 'checksum' | 'kind';

export interface FrameCheck {
  /** Total framed length, when the frame is sound. */
  framedLength: number;
  problem?: FrameProblem;
}

/**
 * Checks the frame that starts at `offset`: the length prefix is in range, fits in `limit`,
 * matches the suffix, and the checksum holds.
 */
export function checkFrame(buffer: Buffer, offset: number, limit: number): FrameCheck {
  if (offset + 4 > limit) return { framedLength: 0, problem: 'length' };
  const payloadLength = buffer.readUInt32LE(offset);
  const framedLength = payloadLength + FRAME_BYTES;
  if (payloadLength < 6 || payloadLength > RECORD_PAYLOAD_BYTES_MAX || offset + framedLength > limit) {
    return { framedLength: 0, problem: 'length' };
  }
  if (buffer.readUInt32LE(offset + 4 + payloadLength) !== payloadLength) return { framedLength: 0, problem: 'length' };
  const stored = buffer.readUInt32LE(offset + 4);
  if (crc32Of(buffer, offset + 8, offset + 4 + payloadLength) !== stored) {
    return { framedLength: 0, problem: 'checksum' };
  }
  const kind = buffer[offset + 8];
  if (kind !== RecordKind.event && kind !== RecordKind.system) return { framedLength: 0, problem: 'kind' };
  return { framedLength };
}

/** Where the field just read ends: decoding returns values, not [value, end] pairs, for every record read. */
let fieldEnd = 0;

function readShortString(buffer: Buffer, offset: number): string {
  const length = buffer.readUInt16LE(offset);
  fieldEnd = offset + 2 + length;
  return buffer.toString('utf8', offset + 2, fieldEnd);
}

/** Stream names and event types of the events decoded on demand (see RecentStrings). */
const recentStreamNames = new RecentStrings(64, 128);
const recentEventTypes = new RecentStrings(32, 64);

/** readShortString, giving a string `recent` kept for the same bytes when it has one. */
function readShortStringAgain(recent: RecentStrings, buffer: Buffer, offset: number): string {
  const length = buffer.readUInt16LE(offset);
  fieldEnd = offset + 2 + length;
  return recent.read(buffer, offset + 2, length);
}

/** Zero-length fields (metadata, mostly) share one empty view. */
const EMPTY = Buffer.alloc(0);

function readBytes(buffer: Buffer, offset: number): Buffer {
  const length = buffer.readUInt32LE(offset);
  fieldEnd = offset + 4 + length;
  if (length === 0) return EMPTY;
  return buffer.buffer instanceof SharedArrayBuffer ? copyOut(buffer, offset + 4, fieldEnd) : buffer.subarray(offset + 4, fieldEnd);
}

/**
 * Bytes of shared memory (the chunk being written, see Chunk) are copied out: a record's data
 * handed to readers must be an ordinary Buffer (libraries tell bytes from objects by an
 * ArrayBuffer behind them), and must not keep a chunk's whole memory alive.
 */
function copyOut(buffer: Buffer, start: number, end: number): Buffer {
  const copy = Buffer.allocUnsafe(end - start);
  copyRange(copy, 0, buffer, start, end);
  return copy;
}

/**
 * Decodes a frame already checked with checkFrame. Data and metadata are views into `buffer`,
 * or copies when it is shared memory (see copyOut).
 */
export function decodeRecord(buffer: Buffer, offset: number): LogRecord {
  const p = offset + 4;
  const logPosition = readInt64(buffer, p + 6);
  if (buffer[p + 4] === RecordKind.system) {
    return { kind: RecordKind.system, logPosition, timestamp: readInt64(buffer, p + 14), systemKind: buffer[p + 22], data: readBytes(buffer, p + 23) };
  }
  const streamName = readShortString(buffer, p + 76);
  const eventType = readShortString(buffer, fieldEnd);
  const data = readBytes(buffer, fieldEnd);
  const metadata = readBytes(buffer, fieldEnd);
  return {
    kind: RecordKind.event,
    logPosition,
    flags: buffer.readUInt16LE(p + 14),
    transactionPosition: readInt64(buffer, p + 16),
    transactionOffset: buffer.readInt32LE(p + 24),
    eventNumber: readEventNumber(buffer, p + 28),
    timestamp: readInt64(buffer, p + 36),
    eventId: readUuid(buffer, p + 44),
    correlationId: readUuid(buffer, p + 60),
    streamName,
    eventType,
    data,
    metadata,
  };
}

/**
 * decodeRecord for walks over the log's memory that hand on many events whose data is seldom
 * read (projections: the system projections read names and numbers only). An event in shared
 * memory has its data copied out, and its id and rarer fields decoded, the first time they are
 * asked for (EventDecodedOnDemand); any other record is decoded as decodeRecord does.
 */
export function decodeRecordOnDemand(buffer: Buffer, offset: number): LogRecord {
  if (buffer[offset + 8] !== RecordKind.event || !(buffer.buffer instanceof SharedArrayBuffer)) return decodeRecord(buffer, offset);
  return new EventDecodedOnDemand(buffer, offset + 4);
}

/**
 * An event record in a chunk's shared memory of which only what projections read of every event
 * is decoded at once (position, flags, number, stream, type, metadata): its data is copied out
 * (see copyOut) and its id made into text when first read, its other fields decoded when read.
 * A published record's bytes never change in that memory (records are only appended, and a
 * chunk's memory is never reused), so a late copy is the copy an early one would have been;
 * until then the record holds the chunk's memory, as a view of its data would.
 */
class EventDecodedOnDemand implements EventRecord {
  readonly kind = RecordKind.event;
  readonly logPosition: number;
  readonly flags: number;
  readonly eventNumber: number;
  readonly streamName: string;
  readonly eventType: string;
  readonly metadata: Buffer;
  /** Where the data's length prefix is in `memory`. */
  private readonly dataAt: number;
  private copied: Buffer | undefined;
  private id: string | undefined;

  /** `p`: where the record's payload starts in `memory`. */
  constructor(private readonly memory: Buffer, private readonly p: number) {
    this.logPosition = readInt64(memory, p + 6);
    this.flags = memory.readUInt16LE(p + 14);
    this.eventNumber = readEventNumber(memory, p + 28);
    this.streamName = readShortStringAgain(recentStreamNames, memory, p + 76);
    this.eventType = readShortStringAgain(recentEventTypes, memory, fieldEnd);
    this.dataAt = fieldEnd;
    this.metadata = readBytes(memory, fieldEnd + 4 + memory.readUInt32LE(fieldEnd));
  }

  get data(): Buffer {
    return (this.copied ??= readBytes(this.memory, this.dataAt));
  }

  /** Made when asked for: what projections emit names the id as text, which putEventIdText writes from the bytes. */
  get eventId(): string {
    return (this.id ??= readUuid(this.memory, this.p + 44));
  }

  get transactionPosition(): number {
    return readInt64(this.memory, this.p + 16);
  }

  get transactionOffset(): number {
    return this.memory.readInt32LE(this.p + 24);
  }

  get timestamp(): number {
    return readInt64(this.memory, this.p + 36);
  }

  /** Every write has its own, so it would be a new string per event: made only for those who ask. */
  get correlationId(): string {
    return readUuid(this.memory, this.p + 60);
  }

  putIdText(target: Buffer, at: number): void {
    putUuidText(target, at, this.memory, this.p + 44);
  }

  putIdBytes(target: Buffer, at: number): void {
    copyRange(target, at, this.memory, this.p + 44, this.p + 60);
  }
}

/** Writes the event's id as text (UUID_TEXT_BYTES ASCII bytes) at `at` of `target`; from the record's bytes, when it has them, without making the string. */
export function putEventIdText(target: Buffer, at: number, event: Pick<EventRecord, 'eventId'>): number {
  if (event instanceof EventDecodedOnDemand) event.putIdText(target, at);
  else target.write(event.eventId, at, UUID_TEXT_BYTES, 'latin1');
  return at + UUID_TEXT_BYTES;
}

/** Writes the event's id (16 bytes) at `at` of `target`; from the record's bytes, when it has them, without reading the string. */
export function putEventIdBytes(target: Buffer, at: number, event: Pick<EventRecord, 'eventId'>): void {
  if (event instanceof EventDecodedOnDemand) event.putIdBytes(target, at);
  else writeUuid(target, at, event.eventId);
}

/** The fields an index rebuild needs, without decoding the data. Undefined for system records. */
export function peekEventKey(buffer: Buffer, offset: number): { streamName: string; eventNumber: number } | undefined {
  const p = offset + 4;
  if (buffer[p + 4] !== RecordKind.event) return undefined;
  const streamName = readShortString(buffer, p + 76);
  return { streamName, eventNumber: readEventNumber(buffer, p + 28) };
}

/** Where an event record stands in the write it belongs to (its transaction). */
export interface TransactionPlace {
  flags: number;
  /** The log position of the write's first record. */
  transactionPosition: number;
  /** The record's index in the write. */
  transactionOffset: number;
}

/** The transaction fields of the frame at `offset`, already checked; undefined for a system record. */
export function transactionPlace(buffer: Buffer, offset: number): TransactionPlace | undefined {
  const p = offset + 4;
  if (buffer[p + 4] !== RecordKind.event) return undefined;
  return { flags: buffer.readUInt16LE(p + 14), transactionPosition: readInt64(buffer, p + 16), transactionOffset: buffer.readInt32LE(p + 24) };
}

/** What deciding whether to keep a record looks at: its header fields, not its data or ids. */
export type RecordHead =
  | Pick<SystemRecord, 'kind' | 'logPosition' | 'timestamp' | 'systemKind'>
  | Pick<EventRecord, 'kind' | 'logPosition' | 'flags' | 'transactionPosition' | 'eventNumber' | 'timestamp' | 'streamName'>;

/** Decodes the head of a frame already checked with checkFrame: a rewrite decides on it per record. */
export function decodeRecordHead(buffer: Buffer, offset: number): RecordHead {
  const p = offset + 4;
  const logPosition = readInt64(buffer, p + 6);
  if (buffer[p + 4] === RecordKind.system) {
    return { kind: RecordKind.system, logPosition, timestamp: readInt64(buffer, p + 14), systemKind: buffer[p + 22] };
  }
  const streamName = readShortString(buffer, p + 76);
  return {
    kind: RecordKind.event,
    logPosition,
    flags: buffer.readUInt16LE(p + 14),
    transactionPosition: readInt64(buffer, p + 16),
    eventNumber: readEventNumber(buffer, p + 28),
    timestamp: readInt64(buffer, p + 36),
    streamName,
  };
}

/**
 * Whether the frame at `offset` is an event of a system stream (a name that starts with `$`),
 * read from the stream name's first byte: readers that pass over such events need not decode them.
 */
export function isSystemStreamEvent(buffer: Buffer, offset: number): boolean {
  const p = offset + 4;
  return buffer[p + 4] === RecordKind.event && buffer.readUInt16LE(p + 76) > 0 && buffer[p + 78] === 0x24;
}

/**
 * Whether the frame at `offset` is an event of a system stream other than a metadata stream
 * (`$$`…): readers that want stream deletions (soft deletes are metadata) pass over the rest.
 */
export function isSystemStreamEventButMetadata(buffer: Buffer, offset: number): boolean {
  const p = offset + 4;
  return isSystemStreamEvent(buffer, offset) && !(buffer.readUInt16LE(p + 76) > 1 && buffer[p + 79] === 0x24);
}

/** Where an event record's parts lie in its frame (offsets from the frame's start). */
export interface EventFrameLayout {
  flagsOffset: number;
  checksumOffset: number;
  /** The data bytes, after their u32 length. */
  dataOffset: number;
  dataLength: number;
}

/** The layout of the event record framed at `offset`; undefined for a system record. */
export function eventFrameLayout(buffer: Buffer, offset: number): EventFrameLayout | undefined {
  const p = offset + 4;
  if (buffer[p + 4] !== RecordKind.event) return undefined;
  const afterStream = p + 76 + 2 + buffer.readUInt16LE(p + 76);
  const afterType = afterStream + 2 + buffer.readUInt16LE(afterStream);
  return { flagsOffset: p + 14 - offset, checksumOffset: 4, dataOffset: afterType + 4 - offset, dataLength: buffer.readUInt32LE(afterType) };
}

/** Recomputes the checksum of the frame at `offset` after its payload was changed in place. */
export function resealFrame(buffer: Buffer, offset: number): void {
  const payloadLength = buffer.readUInt32LE(offset);
  buffer.writeUInt32LE(crc32Of(buffer, offset + 8, offset + 4 + payloadLength), offset + 4);
}

export function isJsonEvent(event: EventRecord): boolean {
  return (event.flags & EventFlags.isJson) !== 0;
}
