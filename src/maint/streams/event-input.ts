/**
 * The events `svcdb stream append` writes, as entries of the node's JSON batch. Data and metadata
 * go in as the text the user gave, never parsed and written again: a number wider than a double,
 * `1.0`, escapes and key order reach the node byte for byte (the node stores the source text of
 * each value). Text is parsed only to check that it is JSON.
 */
import { randomUUID } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { Errors } from '../../common/errors.js';

/** One entry of the batch body, as JSON text. */
export type BatchEntry = string;

/** Whether text is one JSON value (blank text is not). */
export function isJsonText(text: string): boolean {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** JSON text checked to be JSON, or the error naming where it came from. */
export function jsonText(text: string, where: string): string {
  const trimmed = text.trim();
  if (!isJsonText(trimmed)) {
    throw Errors.clientEventInvalid.create(where, `${JSON.stringify(text.slice(0, 80))} is not JSON; quote text as a JSON string ("text")`);
  }
  return trimmed;
}

/**
 * The data of a file: its JSON text as it is, other UTF-8 text as a JSON string (stored as that
 * text, not JSON).
 */
export function fileDataText(bytes: Buffer, file: string): string {
  if (!isUtf8(bytes)) throw Errors.clientEventInvalid.create(file, 'is not UTF-8 text; event data from a file is JSON or text');
  const text = bytes.toString('utf8');
  return isJsonText(text) ? text.trim() : JSON.stringify(text);
}

/** An entry from an event type and the JSON texts of its data and metadata. */
export function batchEntry(eventType: string, dataText: string, metadataText?: string): BatchEntry {
  const metadata = metadataText === undefined ? '' : `,"metadata":${metadataText}`;
  return `{"eventId":"${randomUUID()}","eventType":${JSON.stringify(eventType)},"data":${dataText}${metadata}}`;
}

/**
 * A line of standard input. With --type it is the event's data; without, an object
 * `{"eventType", "data", "metadata"?, "eventId"?}` that goes to the node as it is (an event id is
 * put in front when it has none, so a repeated run of the same lines is not made idempotent by
 * accident, nor a line written twice).
 */
export function lineEntry(line: string, lineNumber: number, eventType: string | undefined, metadataText?: string): BatchEntry {
  const where = `line ${lineNumber} of standard input`;
  const text = jsonText(line, where);
  if (eventType !== undefined) return batchEntry(eventType, text, metadataText);
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw Errors.clientEventInvalid.create(where, 'is not a JSON object; give {"eventType":"T","data":{...}} per line, or the data alone with --type T');
  }
  const event = parsed as Record<string, unknown>;
  if (typeof event.eventType !== 'string' || event.eventType === '') {
    throw Errors.clientEventInvalid.create(where, 'has no "eventType"; add it to each line, or give --type T for lines that hold the data alone');
  }
  if (event.eventId !== undefined) return text;
  return `{"eventId":"${randomUUID()}",${text.slice(1)}`;
}
