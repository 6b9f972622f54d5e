/**
 * The stream metadata form: the recognised properties as fields, validated before anything is
 * sent, and written back with every other property the metadata held kept as it was.
 *
 * Numbers stay exact: `$tb` of a soft-deleted stream is 2^63-1, beyond what a JavaScript number
 * holds, so the numeric properties are read from and written to the JSON text as digit strings,
 * and every other property goes back as the text it was shown or typed as.
 */
import { jsonError, objectMembers, objectText, reindentJson } from './json-text.js';

export const NUMERIC_KEYS = ['$maxAge', '$maxCount', '$tb', '$cacheControl'] as const;
export const ACL_KEYS = ['$r', '$w', '$d', '$mr', '$mw'] as const;

export type NumericKey = (typeof NUMERIC_KEYS)[number];
export type AclKey = (typeof ACL_KEYS)[number];

export interface MetadataForm {
  numbers: Record<NumericKey, string>;
  /** Roles of each right, separated by commas; empty when the metadata does not set it. */
  acl: Record<AclKey, string>;
  /** Every other property, as JSON text of an object. */
  custom: string;
}

const INT64_MAX = 9223372036854775807n;
const MINIMUM: Record<NumericKey, bigint> = { $maxAge: 1n, $maxCount: 1n, $tb: 0n, $cacheControl: 1n };
const UNITS: Record<NumericKey, string> = { $maxAge: 'seconds', $maxCount: 'events', $tb: 'an event number', $cacheControl: 'seconds' };

const RESERVED_KEYS: readonly string[] = [...NUMERIC_KEYS, '$acl'];

function integerText(value: string | undefined): string {
  return value !== undefined && /^-?[0-9]+$/.test(value) ? value : '';
}

function rolesText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((role) => typeof role === 'string').join(', ');
  return '';
}

/** The form for metadata given as JSON text (empty text: a stream without metadata). */
export function formOf(text: string): MetadataForm {
  const members = objectMembers(text.trim() === '' ? '{}' : text) ?? new Map<string, string>();
  const aclText = members.get('$acl');
  const aclValue: unknown = aclText === undefined ? undefined : JSON.parse(aclText);
  const acl = (typeof aclValue === 'object' && aclValue !== null ? aclValue : {}) as Record<string, unknown>;
  const custom = [...members].filter(([key]) => !RESERVED_KEYS.includes(key));
  return {
    numbers: Object.fromEntries(NUMERIC_KEYS.map((key) => [key, integerText(members.get(key))])) as Record<NumericKey, string>,
    acl: Object.fromEntries(ACL_KEYS.map((key) => [key, rolesText(acl[key])])) as Record<AclKey, string>,
    custom: reindentJson(objectText(custom)) ?? '{}',
  };
}

export type Validated = { ok: true; json: string } | { ok: false; errors: string[] };

function checkNumber(key: NumericKey, text: string): string | undefined {
  if (!/^[0-9]+$/.test(text)) return `${key} must be a whole number of ${UNITS[key]}`;
  const value = BigInt(text);
  if (value < MINIMUM[key]) return `${key} must be at least ${MINIMUM[key]}`;
  if (value > INT64_MAX) return `${key} must be at most ${INT64_MAX}`;
  return undefined;
}

function roles(text: string): string | string[] | undefined {
  const names = text.split(',').map((role) => role.trim()).filter((role) => role !== '');
  if (names.length === 0) return undefined;
  return names.length === 1 ? names[0] : names;
}

/** The metadata JSON for a filled form, or what to fix. */
export function metadataOf(form: MetadataForm): Validated {
  const errors: string[] = [];
  const customText = form.custom.trim() === '' ? '{}' : form.custom;
  const problem = jsonError(customText);
  const custom = objectMembers(customText) ?? new Map<string, string>();
  if (problem !== undefined) errors.push(`other properties are not valid JSON: ${problem}`);
  else if (!/^\s*\{/.test(customText)) errors.push('other properties must be a JSON object');
  const numbers: Array<[NumericKey, string]> = [];
  for (const key of NUMERIC_KEYS) {
    const text = form.numbers[key].trim();
    if (text === '') continue;
    const problem = checkNumber(key, text);
    if (problem) errors.push(problem);
    else numbers.push([key, BigInt(text).toString()]);
  }
  const reserved = [...custom.keys()].filter((key) => RESERVED_KEYS.includes(key));
  if (reserved.length > 0) errors.push(`set ${reserved.join(', ')} in their own fields, not among other properties`);
  if (errors.length > 0) return { ok: false, errors };
  const acl: Record<string, string | string[]> = {};
  for (const key of ACL_KEYS) {
    const value = roles(form.acl[key]);
    if (value !== undefined) acl[key] = value;
  }
  const members: Array<[string, string]> = [...numbers];
  if (Object.keys(acl).length > 0) members.push(['$acl', JSON.stringify(acl)]);
  return { ok: true, json: objectText([...members, ...custom]) };
}
