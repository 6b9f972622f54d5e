/**
 * The stream metadata form: the recognised properties as fields, validated before anything is
 * sent, and written back with every other property the metadata held kept as it was.
 *
 * Numbers stay exact: `$tb` of a soft-deleted stream is 2^63-1, beyond what a JavaScript number
 * holds, so the numeric properties are read from and written to the JSON text as digit strings.
 */
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

function topLevelNumber(text: string, key: string): string {
  const match = new RegExp(`"${key.replace('$', '\\$')}"\\s*:\\s*(-?[0-9]+)`).exec(text);
  return match ? match[1] : '';
}

function rolesText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((role) => typeof role === 'string').join(', ');
  return '';
}

/** The form for metadata given as JSON text (empty text: a stream without metadata). */
export function formOf(text: string): MetadataForm {
  const parsed: unknown = text.trim() === '' ? {} : JSON.parse(text);
  const object = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  const acl = (typeof object.$acl === 'object' && object.$acl !== null ? object.$acl : {}) as Record<string, unknown>;
  const custom = Object.fromEntries(Object.entries(object).filter(([key]) => !(NUMERIC_KEYS as readonly string[]).includes(key) && key !== '$acl'));
  return {
    numbers: Object.fromEntries(NUMERIC_KEYS.map((key) => [key, topLevelNumber(text, key)])) as Record<NumericKey, string>,
    acl: Object.fromEntries(ACL_KEYS.map((key) => [key, rolesText(acl[key])])) as Record<AclKey, string>,
    custom: JSON.stringify(custom, null, 2),
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
  let custom: Record<string, unknown> = {};
  try {
    const parsed: unknown = form.custom.trim() === '' ? {} : JSON.parse(form.custom);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) errors.push('other properties must be a JSON object');
    else custom = parsed as Record<string, unknown>;
  } catch (error) {
    errors.push(`other properties are not valid JSON: ${(error as Error).message}`);
  }
  const numbers: Array<[NumericKey, string]> = [];
  for (const key of NUMERIC_KEYS) {
    const text = form.numbers[key].trim();
    if (text === '') continue;
    const problem = checkNumber(key, text);
    if (problem) errors.push(problem);
    else numbers.push([key, BigInt(text).toString()]);
  }
  const reserved = Object.keys(custom).filter((key) => (NUMERIC_KEYS as readonly string[]).includes(key) || key === '$acl');
  if (reserved.length > 0) errors.push(`set ${reserved.join(', ')} in their own fields, not among other properties`);
  if (errors.length > 0) return { ok: false, errors };
  const acl: Record<string, string | string[]> = {};
  for (const key of ACL_KEYS) {
    const value = roles(form.acl[key]);
    if (value !== undefined) acl[key] = value;
  }
  // Numbers go in as placeholders and come out as their exact digits.
  const object: Record<string, unknown> = Object.fromEntries(numbers.map(([key], index) => [key, `\u0000${index}\u0000`]));
  if (Object.keys(acl).length > 0) object.$acl = acl;
  Object.assign(object, custom);
  const json = JSON.stringify(object).replace(/"\\u0000([0-9]+)\\u0000"/g, (_match, index: string) => numbers[Number(index)][1]);
  return { ok: true, json };
}
