import { Errors } from '../common/errors.js';

/** Event number of a hard-delete tombstone: no real event can have it. */
export const DELETED_EVENT_NUMBER = Number.MAX_SAFE_INTEGER;
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

/** The system properties of a stream's metadata; custom properties are kept in `raw`. */
export interface StreamMetadata {
  maxAgeSeconds?: number;
  maxCount?: number;
  truncateBefore?: number;
  cacheControlSeconds?: number;
  acl?: StreamAcl;
  raw: Record<string, unknown>;
}

export const EMPTY_METADATA: StreamMetadata = Object.freeze({ raw: {} });

export function metadataStreamOf(streamName: string): string {
  return METADATA_STREAM_PREFIX + streamName;
}

export function isMetadataStream(streamName: string): boolean {
  return streamName.startsWith(METADATA_STREAM_PREFIX);
}

export function originalStreamOf(metadataStreamName: string): string {
  return metadataStreamName.slice(METADATA_STREAM_PREFIX.length);
}

const positiveIntegerKeys = { $maxAge: 'maxAgeSeconds', $maxCount: 'maxCount', $cacheControl: 'cacheControlSeconds' } as const;
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

/** Why `raw` is not valid stream metadata, or undefined when it is. */
export function metadataProblem(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'metadata must be a JSON object';
  const object = raw as Record<string, unknown>;
  for (const key of Object.keys(positiveIntegerKeys)) {
    const value = object[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) > 0)) return `${key} must be a positive integer`;
  }
  const tb = object.$tb;
  if (tb !== undefined && !(Number.isSafeInteger(tb) && (tb as number) >= 0)) return '$tb must be an integer >= 0';
  return object.$acl === undefined ? undefined : checkAcl(object.$acl);
}

/** Validates metadata a client sends; throws a coded error that says what to fix. */
export function validateMetadata(raw: unknown): StreamMetadata {
  const problem = metadataProblem(raw);
  if (problem) throw Errors.invalidArgument.create('stream metadata', problem);
  return toMetadata(raw as Record<string, unknown>);
}

function toMetadata(object: Record<string, unknown>): StreamMetadata {
  const metadata: StreamMetadata = { raw: object };
  if (object.$maxAge !== undefined) metadata.maxAgeSeconds = object.$maxAge as number;
  if (object.$maxCount !== undefined) metadata.maxCount = object.$maxCount as number;
  if (object.$cacheControl !== undefined) metadata.cacheControlSeconds = object.$cacheControl as number;
  if (object.$tb !== undefined) metadata.truncateBefore = object.$tb as number;
  if (object.$acl !== undefined) metadata.acl = object.$acl as StreamAcl;
  return metadata;
}

/**
 * Reads stored metadata. Stored metadata was validated when written, but a metadata stream can
 * also be appended to directly; what does not parse is ignored rather than failing reads.
 */
export function parseStoredMetadata(data: Buffer): StreamMetadata {
  try {
    const raw: unknown = JSON.parse(data.toString('utf8'));
    return metadataProblem(raw) ? EMPTY_METADATA : toMetadata(raw as Record<string, unknown>);
  } catch {
    return EMPTY_METADATA;
  }
}
