/**
 * Turns an append request body into events. A batch (`application/vnd.svc.events+json` and its
 * aliases) is a JSON array of `{eventId, eventType, data, metadata}`; an XML batch
 * (`application/vnd.svc.events+xml` and its aliases) a root element of `<event>` elements with
 * the same fields, whose XML content becomes JSON as JSON-to-XML converters read it
 * (`<data><a>1</a></data>` is `{"a":"1"}`). A single raw event is the body itself, with its
 * type and id in headers.
 */
import { Errors } from '../../../common/errors.js';
import { arrayElements, lastMember, objectMembers, type Span } from '../../../common/json-scan.js';
import { isLenientJson, readJson } from '../../../common/lenient-json.js';
import { isNilUuid, isUuid } from '../../../storage/log/uuid.js';
import type { NewEvent } from '../../../storage/streams/write-types.js';
import { parseXmlRoot } from '../xml-body.js';
import { scanBatch, type ScannedEvent, type ValueBytes } from './batch-scan.js';
import { MediaType } from './media-types.js';

const BATCH_TYPES = new Set<string>([MediaType.eventsJson, MediaType.eventJson, MediaType.atomJson]);
const XML_BATCH_TYPES = new Set<string>([MediaType.eventsXml, MediaType.eventXml, MediaType.atomXml]);
const RAW_TYPES = new Map<string, boolean>([
  // media type → whether the data is JSON
  [MediaType.json, true],
  [MediaType.xml, false],
  [MediaType.textXml, false],
  [MediaType.octetStream, false],
]);
const EMPTY = Buffer.alloc(0);

/** What a 415 lists: the types an append, a single raw event, and a metadata write accept. */
export const APPEND_MEDIA_TYPES: readonly string[] = [...BATCH_TYPES, ...XML_BATCH_TYPES, ...RAW_TYPES.keys()];
export const RAW_MEDIA_TYPES: readonly string[] = [...RAW_TYPES.keys()];
export const METADATA_MEDIA_TYPES: readonly string[] = [MediaType.json, ...BATCH_TYPES, ...XML_BATCH_TYPES];

/** Event data and metadata of one request, together, may not exceed this. */
export const APPEND_DATA_BYTES_MAX = 4 * 1024 * 1024;

/** The 4 MiB limit is on what is stored, not on the body that carries it (a batch's envelope and escapes). */
export function checkDataSize(events: readonly NewEvent[]): NewEvent[] {
  let bytes = 0;
  for (const event of events) bytes += event.data.length + event.metadata.length;
  if (bytes > APPEND_DATA_BYTES_MAX) throw Errors.eventsTooLarge.create(bytes, APPEND_DATA_BYTES_MAX);
  return events as NewEvent[];
}

export function isBatchType(mediaType: string): boolean {
  return BATCH_TYPES.has(mediaType) || XML_BATCH_TYPES.has(mediaType);
}

export function isRawType(mediaType: string): boolean {
  return RAW_TYPES.has(mediaType);
}

/**
 * A raw single event: the body is the data, stored as sent. An `application/json` body is JSON
 * when the lenient reader reads it (`{a : "1"}` too); other text stays raw bytes, not JSON.
 */
export function rawEvent(mediaType: string, body: Buffer, eventId: string, eventType: string): NewEvent {
  const isJson = (RAW_TYPES.get(mediaType) ?? false) && isLenientJson(body.toString('utf8'));
  return { eventId, eventType, data: body, metadata: EMPTY, isJson };
}

interface Encoded {
  bytes: Buffer;
  isJson: boolean;
}

/** The source text of a value of the batch, where the batch was JSON (an XML batch has none). */
type SourceText = (() => string) | undefined;

/**
 * `data` / `metadata` of a batch entry: an object or array is stored as JSON, as the client wrote
 * it; a string that holds a JSON object or array is stored as that JSON; any other string as its
 * UTF-8 bytes; other JSON values as their JSON text; absent or null as nothing.
 */
function encodeValue(value: unknown, source: SourceText): Encoded {
  if (value === undefined || value === null) return { bytes: EMPTY, isJson: false };
  if (typeof value === 'object') return { bytes: Buffer.from(source ? source() : stringify(value)), isJson: true };
  if (typeof value === 'string') {
    const trimmed = value.trim();
    // Not JSON after all (not even to the lenient reader): stored as text.
    const json = (trimmed.startsWith('{') || trimmed.startsWith('[')) && isLenientJson(trimmed);
    return { bytes: Buffer.from(value), isJson: json };
  }
  return { bytes: Buffer.from(source ? source() : stringify(value)), isJson: false };
}

/** JSON text of a value converted from XML; a value nested too deeply for the serializer is the client's error. */
function stringify(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    // The serializer recurses and runs out of stack; only depth makes a parsed value fail here.
    throw Errors.invalidEvent.create('data or metadata is nested too deeply to be stored as JSON; flatten it, '
      + 'or send event data as a single event with Content-Type: application/json, which is stored as sent');
  }
}

function parseJson(text: string): { value: unknown; strict: boolean } {
  try {
    return readJson(text);
  } catch (error) {
    throw Errors.httpRequestInvalid.create(`the body is not valid JSON (${(error as Error).message})`);
  }
}

/** Finds the source text of `data` and `metadata` of each entry of a JSON batch, when asked. */
class BatchSource {
  private elements: Span[] | undefined;

  constructor(private readonly text: string) {}

  of(index: number, key: 'data' | 'metadata'): string {
    this.elements ??= arrayElements(this.text) ?? [];
    const members = objectMembers(this.text, this.elements[index]) ?? [];
    const member = lastMember(members, key);
    if (member === undefined) throw new TypeError(`the scanner lost ${key} of batch entry ${index}`);
    return this.text.slice(member.value.start, member.value.end);
  }
}

function batchEntry(entry: unknown, index: number, source: BatchSource | undefined): NewEvent {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw Errors.invalidEvent.create(`entry ${index} of the batch is not an object`);
  }
  const { eventId, eventType, data, metadata } = entry as Record<string, unknown>;
  if (eventId === undefined || eventId === null || eventId === '') throw Errors.eventIdMissing.create(`entry ${index}`);
  if (typeof eventId !== 'string' || !isUuid(eventId)) throw Errors.invalidEvent.create(`eventId of entry ${index} is not a UUID`);
  if (isNilUuid(eventId)) throw Errors.eventIdNil.create(`entry ${index}`);
  if (eventType === undefined || eventType === null || eventType === '') throw Errors.invalidEvent.create(`Empty eventType provided (entry ${index})`);
  if (typeof eventType !== 'string') {
    throw Errors.invalidEvent.create(`eventType of entry ${index} is a ${Array.isArray(eventType) ? 'array' : typeof eventType}; it must be a non-empty string`);
  }
  const encodedData = encodeValue(data, source && (() => source.of(index, 'data')));
  const encodedMetadata = encodeValue(metadata, source && (() => source.of(index, 'metadata')));
  return {
    eventId: eventId.toLowerCase(),
    eventType,
    data: encodedData.bytes,
    metadata: encodedMetadata.bytes,
    isJson: encodedData.isJson || encodedMetadata.isJson,
  };
}

const NOT_A_BATCH = 'Write request body invalid: a batch is a JSON array of events, or an XML root element of <event> elements';

/** The `<event>` elements of an XML batch (always a list, xml-body.ts sees to it), or undefined. */
function xmlBatch(body: Buffer): unknown {
  const root = parseXmlRoot(body.toString('utf8'), (why) => Errors.invalidEvent.create(why));
  return typeof root === 'object' && root !== null ? (root as { event?: unknown }).event : undefined;
}

/** The string value at `value`, or undefined when the value is not a string. */
function stringAt(body: Buffer, value: ValueBytes | undefined): string | undefined {
  if (value === undefined || body[value.start] !== 0x22) return undefined;
  if (value.escaped) return JSON.parse(body.toString('utf8', value.start, value.end)) as string;
  return body.toString('utf8', value.start + 1, value.end - 1);
}

/** `data` / `metadata` of a scanned entry, encoded as encodeValue does, objects as their bytes in the body. */
function encodeBytes(body: Buffer, value: ValueBytes | undefined): Encoded {
  if (value === undefined) return { bytes: EMPTY, isJson: false };
  const first = body[value.start];
  if (first === 0x22) return encodeValue(stringAt(body, value), undefined);
  if (first === 0x6e) return { bytes: EMPTY, isJson: false }; // null
  // A view, not a copy: the body lives on while its events do, until they are written and published.
  return { bytes: body.subarray(value.start, value.end), isJson: first === 0x7b || first === 0x5b };
}

/** A scanned entry as an event, or undefined when batchEntry would refuse it (and say why). */
function scannedEntry(body: Buffer, scanned: ScannedEvent): NewEvent | undefined {
  const eventId = stringAt(body, scanned.eventId);
  const eventType = stringAt(body, scanned.eventType);
  if (eventId === undefined || !isUuid(eventId) || isNilUuid(eventId) || !eventType) return undefined;
  const data = encodeBytes(body, scanned.data);
  const metadata = encodeBytes(body, scanned.metadata);
  return { eventId: eventId.toLowerCase(), eventType, data: data.bytes, metadata: metadata.bytes, isJson: data.isJson || metadata.isJson };
}

/**
 * The events of a JSON batch read from its bytes, data and metadata sliced from the body; or
 * undefined when the body, or one of its entries, is for the parser (which refuses it, or reads
 * what the scanner does not: lenient JSON, escaped keys).
 */
function scannedEvents(body: Buffer): NewEvent[] | undefined {
  const scanned = scanBatch(body);
  if (scanned === undefined) return undefined;
  const events: NewEvent[] = [];
  for (const entry of scanned) {
    const event = scannedEntry(body, entry);
    if (event === undefined) return undefined;
    events.push(event);
  }
  return events;
}

/** The events of a batch body of type `mediaType` (one of the batch types). */
export function batchEvents(body: Buffer, mediaType: string): NewEvent[] {
  return (XML_BATCH_TYPES.has(mediaType) ? undefined : scannedEvents(body)) ?? parsedBatchEvents(body, mediaType);
}

/**
 * The events of a batch as the parsers read it: every XML batch, and the JSON batches the scanner
 * leaves to the parser. Also what the scanner's results are checked against.
 */
export function parsedBatchEvents(body: Buffer, mediaType: string): NewEvent[] {
  const xml = XML_BATCH_TYPES.has(mediaType);
  const text = xml ? '' : body.toString('utf8');
  const read = xml ? { value: xmlBatch(body), strict: false } : parseJson(text);
  const parsed = read.value;
  if (!Array.isArray(parsed)) throw Errors.invalidEvent.create(NOT_A_BATCH);
  if (parsed.length === 0) throw Errors.invalidEvent.create('the batch is empty; send at least one event');
  // The scanner reads strict JSON only: a batch only the lenient reader reads has its values serialized.
  const source = read.strict ? new BatchSource(text) : undefined;
  return parsed.map((entry, index) => batchEntry(entry, index, source));
}
