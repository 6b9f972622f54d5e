/**
 * Where the members of each event of a JSON batch are in the request's bytes: one pass that also
 * checks the body is strict JSON, so an event's data and metadata are stored as sliced from the
 * body, the bytes the client sent. A body it does not read (not valid UTF-8, not strict JSON, not
 * an array of objects, a key with an escape) is left to the parser, which reads it, or says
 * what is wrong with it, as it always has.
 *
 * Hand-written rather than taken from npm: the JSON scanners there (jsonc-parser, json-to-ast,
 * @streamparser/json) read a decoded string, so their offsets count UTF-16 units rather than
 * bytes, and they tolerate what JSON.parse refuses (comments, trailing commas), which would
 * change which bodies are refused.
 */
import { isUtf8 } from 'node:buffer';
import { JsonBytes } from '../../../common/json-bytes.js';

export interface ValueBytes {
  start: number;
  end: number;
  /** A string with an escape: its value is not its bytes. */
  escaped: boolean;
}

/** The members of one event that make it; the last of a repeated key wins, as with JSON.parse. */
export interface ScannedEvent {
  eventId?: ValueBytes;
  eventType?: ValueBytes;
  data?: ValueBytes;
  metadata?: ValueBytes;
}

type Field = keyof ScannedEvent;
/** Each field's key literal, quotes included, by its length: the four lengths differ. */
const KEYS = new Map<number, { literal: Buffer; field: Field }>(['eventId', 'eventType', 'data', 'metadata'].map((name) => {
  const literal = Buffer.from(`"${name}"`, 'latin1');
  return [literal.length, { literal, field: name as Field }];
}));

/**
 * The event field a member's key names (none for other members), or null for a key with an
 * escape. Compared byte by byte: a string made of each key would cost more than the scan.
 */
function fieldOf(body: Buffer, scanner: JsonBytes, keyStart: number, keyEnd: number): Field | undefined | null {
  if (scanner.escaped) return null;
  const key = KEYS.get(keyEnd - keyStart);
  if (key === undefined) return undefined;
  for (let index = 1; index < key.literal.length - 1; index++) if (body[keyStart + index] !== key.literal[index]) return undefined;
  return key.field;
}

/** The object at `at` as an event's members, and the index after it; undefined where the scan stops. */
function scanEvent(body: Buffer, scanner: JsonBytes, at: number): { event: ScannedEvent; end: number } | undefined {
  if (body[at] !== 0x7b) return undefined;
  const event: ScannedEvent = {};
  let index = scanner.skipWhitespace(at + 1);
  if (body[index] === 0x7d) return { event, end: index + 1 };
  for (;;) {
    const keyEnd = scanner.skipString(index);
    if (keyEnd < 0) return undefined;
    const field = fieldOf(body, scanner, index, keyEnd);
    const colon = scanner.skipWhitespace(keyEnd);
    if (field === null || body[colon] !== 0x3a) return undefined;
    const start = scanner.skipWhitespace(colon + 1);
    const end = scanner.skipValue(start);
    if (end < 0) return undefined;
    if (field !== undefined) event[field] = { start, end, escaped: body[start] === 0x22 && scanner.escaped };
    index = scanner.skipWhitespace(end);
    if (body[index] === 0x7d) return { event, end: index + 1 };
    if (body[index] !== 0x2c) return undefined;
    index = scanner.skipWhitespace(index + 1);
  }
}

/** The events of a JSON batch body, or undefined when the body is for the parser to read. */
export function scanBatch(body: Buffer): ScannedEvent[] | undefined {
  if (!isUtf8(body)) return undefined;
  const scanner = new JsonBytes(body);
  let index = scanner.skipWhitespace(0);
  if (body[index] !== 0x5b) return undefined;
  const events: ScannedEvent[] = [];
  // An empty batch is refused, and the parser says so.
  for (index = scanner.skipWhitespace(index + 1); ; index = scanner.skipWhitespace(index + 1)) {
    const scanned = scanEvent(body, scanner, index);
    if (scanned === undefined) return undefined;
    events.push(scanned.event);
    index = scanner.skipWhitespace(scanned.end);
    if (body[index] === 0x5d) break;
    if (body[index] !== 0x2c) return undefined;
  }
  return scanner.skipWhitespace(index + 1) === body.length ? events : undefined;
}
