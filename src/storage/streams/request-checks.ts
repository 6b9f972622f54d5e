import { Errors } from '../../common/errors.js';
import { isNilUuid, isUuid } from '../log/uuid.js';
import { RECORD_PAYLOAD_BYTES_MAX } from '../log/record.js';
import { framedEventBytes } from '../log/packed-event.js';
import type { NewEvent } from './write-types.js';
import { PackedEvent, bodyBytes } from '../log/packed-event.js';

/** Argument checks for the engine's public methods: after these, the internals trust their input. */

export const STREAM_NAME_BYTES_MAX = 1000;
export const EVENT_TYPE_BYTES_MAX = 1000;
export const READ_COUNT_MAX = 4096;

export function checkStreamName(streamName: unknown): asserts streamName is string {
  if (typeof streamName !== 'string' || streamName.length === 0) throw Errors.invalidStreamName.create('it must be a non-empty string');
  if (Buffer.byteLength(streamName) > STREAM_NAME_BYTES_MAX) {
    throw Errors.invalidStreamName.create(`it is longer than ${STREAM_NAME_BYTES_MAX} bytes`);
  }
}

/** The name under which the log of every stream is read: `$all`. */
export const ALL_STREAM_NAME = '$all';

/**
 * `$all` is read, never written: an event appended under that name could not be read back (a
 * read of `$all` is a read of the log), and a delete would write `$tb` or a tombstone that
 * governs the `$all` feed itself, a hard one forbidding its metadata (its ACL) for ever.
 */
export function checkWritableStream(streamName: string, operation: 'appended to' | 'deleted'): void {
  if (streamName === ALL_STREAM_NAME) {
    throw Errors.invalidStreamName.create(`$all is the log of every stream and cannot be ${operation}; `
      + `write to the streams it holds instead (the metadata of $all stays writable)`);
  }
}

export function checkExpectedVersion(expectedVersion: number): void {
  const valid = Number.isSafeInteger(expectedVersion) && (expectedVersion >= -2 || expectedVersion === -4);
  if (!valid) throw Errors.invalidExpectedVersion.create(String(expectedVersion));
}

export function checkPosition(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) throw Errors.invalidArgument.create(name, `${value} must be an integer >= ${min}`);
}

export function checkCount(maxCount: number): void {
  if (!Number.isSafeInteger(maxCount) || maxCount < 1 || maxCount > READ_COUNT_MAX) {
    throw Errors.invalidArgument.create('count', `${maxCount} must be an integer from 1 to ${READ_COUNT_MAX}`);
  }
}

/** An event of no type, data or metadata: what framedEventBytes gives for it is a stream's fixed share. */
const EMPTY_EVENT: NewEvent = Object.freeze({ eventId: '', eventType: '', data: Buffer.alloc(0), metadata: Buffer.alloc(0), isJson: false });

/**
 * Every event is well formed, each fits in a record, and the whole append fits in an empty chunk.
 * Returns the framed bytes the events take in `streamName`, which the writer reuses.
 */
export function checkEvents(streamName: string, events: NewEvent[], chunkSizeBytes: number): number {
  if (!Array.isArray(events)) throw Errors.invalidEvent.create('events must be a list');
  let total = 0;
  // The stream's share of each record, measured once: this runs for every event appended.
  const streamBytes = framedEventBytes(streamName, EMPTY_EVENT);
  for (const event of events) {
    // A packed event's id is 16 bytes and its bodies are bytes by construction.
    const packed = event instanceof PackedEvent;
    if (!packed && (typeof event.eventId !== 'string' || !isUuid(event.eventId))) throw Errors.invalidEvent.create(`event id ${String(event.eventId)} is not a UUID`);
    if (!packed && isNilUuid(event.eventId)) throw Errors.eventIdNil.create('an event of the append');
    if (typeof event.eventType !== 'string' || event.eventType.length === 0) throw Errors.invalidEvent.create('event type must be a non-empty string');
    const typeBytes = Buffer.byteLength(event.eventType);
    if (typeBytes > EVENT_TYPE_BYTES_MAX) throw Errors.invalidEvent.create(`event type is longer than ${EVENT_TYPE_BYTES_MAX} bytes`);
    if (!packed && (!Buffer.isBuffer(event.data) || !Buffer.isBuffer(event.metadata))) throw Errors.invalidEvent.create('data and metadata must be bytes');
    const bytes = streamBytes + typeBytes + bodyBytes(event);
    if (bytes > RECORD_PAYLOAD_BYTES_MAX) throw Errors.eventTooLarge.create(bytes, RECORD_PAYLOAD_BYTES_MAX);
    total += bytes;
  }
  // A chunk's data stops short of its last byte (TransactionLog.fits): an append fits in an empty chunk.
  const limit = chunkSizeBytes - 1;
  if (total > limit) throw Errors.appendTooLarge.create(total, limit);
  return total;
}
