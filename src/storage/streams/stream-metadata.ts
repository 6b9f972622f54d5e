import { lastMember, objectMembers, withMember } from '../../common/json-scan.js';
import { strictJsonText } from '../../common/lenient-json.js';
import { DELETED_EVENT_NUMBER } from '../log/record.js';

// The tombstone's event number belongs to the record format; the stream rules speak of it too.
export { DELETED_EVENT_NUMBER };
export const NO_STREAM = -1;

export const ExpectedVersion = { any: -2, noStream: -1, streamExists: -4 } as const;

export const METADATA_STREAM_PREFIX = '$$';
export const METADATA_EVENT_TYPE = '$metadata';
export const TOMBSTONE_EVENT_TYPE = '$streamDeleted';

export interface StreamAcl {
  $r?: string | string[];
  $w?: string | string[];
  $d?: string | string[];
  $mr?: string | string[];
  $mw?: string | string[];
}

/** The system properties of a stream's metadata, and the stored text they were read from. */
export interface StreamMetadata {
  maxAgeSeconds?: number;
  maxCount?: number;
  /** Up to DELETED_EVENT_NUMBER, which stands for every larger value (9223372036854775807 among them). */
  truncateBefore?: number;
  cacheControlSeconds?: number;
  acl?: StreamAcl;
  /** The metadata as stored: a JSON object's text, or '' when the stream has none that parses. */
  text: string;
}

export const EMPTY_METADATA: StreamMetadata = Object.freeze({ text: '' });

/** The largest event number of the wire protocol (a signed 64-bit integer), as text. */
export const EVENT_NUMBER_MAX_TEXT = '9223372036854775807';
const EVENT_NUMBER_MAX = BigInt(EVENT_NUMBER_MAX_TEXT);

/**
 * Event numbers are JavaScript numbers; DELETED_EVENT_NUMBER stands for 9223372036854775807 (the
 * tombstone's number, and `$tb` of a soft-deleted stream), which a number cannot hold exactly.
 */
export function eventNumberText(eventNumber: number): string {
  return eventNumber === DELETED_EVENT_NUMBER ? EVENT_NUMBER_MAX_TEXT : String(eventNumber);
}

/**
 * A 64-bit integer written in decimal (a header, a path segment, a JSON number's text), exactly:
 * values above 2^53 - 1 (up to 9223372036854775807) become DELETED_EVENT_NUMBER, which is past
 * every event. Undefined for anything else.
 */
export function parseInt64(text: string): number | undefined {
  if (!/^[-+]?[0-9]{1,19}$/.test(text)) return undefined;
  const value = BigInt(text);
  if (value > EVENT_NUMBER_MAX || value < -EVENT_NUMBER_MAX - 1n) return undefined;
  if (value > BigInt(DELETED_EVENT_NUMBER)) return DELETED_EVENT_NUMBER;
  if (value < BigInt(Number.MIN_SAFE_INTEGER)) return Number.MIN_SAFE_INTEGER;
  return Number(value);
}

export function metadataStreamOf(streamName: string): string {
  return METADATA_STREAM_PREFIX + streamName;
}

export function isMetadataStream(streamName: string): boolean {
  return streamName.startsWith(METADATA_STREAM_PREFIX);
}

export function originalStreamOf(metadataStreamName: string): string {
  return metadataStreamName.slice(METADATA_STREAM_PREFIX.length);
}

const INTEGER_KEYS = { $maxAge: 'maxAgeSeconds', $maxCount: 'maxCount', $cacheControl: 'cacheControlSeconds', $tb: 'truncateBefore' } as const;
const ACL_KEYS = ['$r', '$w', '$d', '$mr', '$mw'];

function checkAcl(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return '$acl must be an object';
  for (const [key, roles] of Object.entries(value)) {
    if (!ACL_KEYS.includes(key)) return `$acl.${key} is not one of ${ACL_KEYS.join(', ')}`;
    const ok = typeof roles === 'string' || (Array.isArray(roles) && roles.every((role) => typeof role === 'string'));
    if (!ok) return `$acl.${key} must be a role name or a list of role names`;
  }
  return undefined;
}

/** An integer property's value from its JSON text: exact to 64 bits; a fraction of zero is allowed (`1.0`). */
function integerOf(text: string): number | undefined {
  const exact = parseInt64(text);
  if (exact !== undefined) return exact;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

type Parsed = { metadata: StreamMetadata } | { problem: string };

/**
 * The meaning of metadata text: the system properties are read from their source text (64-bit
 * values exactly); values <= 0 (`$tb` < 0) are ignored, as custom properties are. Text that only
 * the lenient reader reads (`{$maxCount: 10}`) is read in its strict form.
 */
function parseMetadataText(stored: string): Parsed {
  const text = strictJsonText(stored);
  const members = text === undefined ? undefined : objectMembers(text);
  if (text === undefined || members === undefined) return { problem: 'metadata must be a JSON object' };
  const metadata: StreamMetadata = { text };
  for (const [key, field] of Object.entries(INTEGER_KEYS)) {
    const member = lastMember(members, key);
    if (member === undefined) continue;
    const value = integerOf(text.slice(member.value.start, member.value.end));
    if (value === undefined) return { problem: `${key} must be an integer (at most 9223372036854775807)` };
    if (value > 0 || (key === '$tb' && value === 0)) metadata[field] = value;
  }
  const acl = lastMember(members, '$acl');
  if (acl !== undefined) {
    const value: unknown = JSON.parse(text.slice(acl.value.start, acl.value.end));
    const problem = checkAcl(value);
    if (problem) return { problem };
    metadata.acl = value as StreamAcl;
  }
  return { metadata };
}

/** Why metadata text is not valid stream metadata, or undefined when it is. */
export function metadataProblem(text: string): string | undefined {
  const parsed = parseMetadataText(text);
  return 'problem' in parsed ? parsed.problem : undefined;
}

/**
 * Reads stored metadata. A metadata event that is not a JSON object, or whose system properties
 * do not parse, means no metadata: reads never fail on it.
 */
export function parseStoredMetadata(data: Buffer, isJson: boolean): StreamMetadata {
  if (!isJson || data.length === 0) return EMPTY_METADATA;
  const parsed = parseMetadataText(data.toString('utf8'));
  return 'problem' in parsed ? EMPTY_METADATA : parsed.metadata;
}

/**
 * Metadata text with `$tb` set to `truncateBeforeText`, every other member kept as written (in
 * the strict form of text only the lenient reader reads); undefined when it is not a JSON object.
 */
export function withTruncateBefore(stored: string, truncateBeforeText: string): string | undefined {
  const text = strictJsonText(stored);
  if (text === undefined || objectMembers(text) === undefined) return undefined;
  return withMember(text, '$tb', truncateBeforeText);
}
