/**
 * The path and query parameters of reads, parsed at the edge with coded 400s: event numbers
 * (`head` where a read may start at the end), counts, and the `embed` level.
 */
import { Errors } from '../../../common/errors.js';
import { READ_COUNT_MAX } from '../../../storage/streams/request-checks.js';
import { parseInt64 } from '../../../storage/streams/stream-metadata.js';

/** Pages hold this many events unless the path names a count. */
export const PAGE_COUNT_DEFAULT = 20;
/** What `head` stands for in a read's start. */
export const HEAD = -1;

/** Digits only, without sign, spaces or exponent; undefined otherwise or when too large. */
function digits(text: string): number | undefined {
  if (text.length === 0 || text.length > 16) return undefined;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return undefined;
  }
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * Event numbers go up to 9223372036854775807 (a tombstone's), whatever their number of digits;
 * those above 2^53 - 1 are past every event.
 */
function eventNumberDigits(text: string): number | undefined {
  return /^[0-9]+$/.test(text) ? parseInt64(text) : undefined;
}

/** An event number, or HEAD for `head` when `headAllowed`. */
export function eventNumberParam(text: string, headAllowed: boolean): number {
  if (headAllowed && text === 'head') return HEAD;
  const value = eventNumberDigits(text);
  if (value === undefined) {
    const expected = headAllowed ? 'an event number is an integer >= 0 or head' : 'an event number is an integer >= 0 (head is only for backward reads)';
    throw Errors.httpPathInvalid.create(text, expected);
  }
  return value;
}

export function countParam(text: string): number {
  const value = digits(text);
  if (value === undefined || value < 1 || value > READ_COUNT_MAX) {
    throw Errors.httpPathInvalid.create(text, `a count is an integer from 1 to ${READ_COUNT_MAX}`);
  }
  return value;
}

/** How much of each event a feed entry carries, from least to most. */
export const EmbedLevel = { none: 0, content: 1, rich: 2, body: 3, prettyBody: 4, tryHarder: 5 } as const;
export type EmbedLevel = (typeof EmbedLevel)[keyof typeof EmbedLevel];

const EMBED_NAMES = new Map<string, EmbedLevel>([
  ['content', EmbedLevel.content],
  ['rich', EmbedLevel.rich],
  ['body', EmbedLevel.body],
  ['pretty', EmbedLevel.prettyBody],
  ['tryharder', EmbedLevel.tryHarder],
]);

/** `?embed=` is case-insensitive; anything unknown means none, as clients of the protocol expect. */
export function embedParam(value: unknown): EmbedLevel {
  const text: unknown = Array.isArray(value) ? (value as unknown[])[0] : value;
  if (typeof text !== 'string') return EmbedLevel.none;
  return EMBED_NAMES.get(text.toLowerCase()) ?? EmbedLevel.none;
}
