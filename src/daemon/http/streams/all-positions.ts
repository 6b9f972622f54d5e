/**
 * `$all` positions on the wire: 32 hex digits, the commit position then the prepare position,
 * 16 digits each. Both are the record's log position here, so a position the client sends must
 * have equal halves.
 */
import { Errors } from '../../../common/errors.js';

const HALF_DIGITS = 16;
const ZEROS = '0'.repeat(HALF_DIGITS);

/** The start of the log: `00000000000000000000000000000000`. */
export const START_POSITION_TEXT = ZEROS + ZEROS;

export function formatAllPosition(logPosition: number): string {
  const half = (ZEROS + logPosition.toString(16).toUpperCase()).slice(-HALF_DIGITS);
  return half + half;
}

function isHexDigit(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
}

/** The log position a client's position text stands for; a coded 400 when it is not one. */
export function parseAllPosition(text: string): number {
  let valid = text.length === 2 * HALF_DIGITS;
  for (let i = 0; valid && i < text.length; i++) valid = isHexDigit(text.charCodeAt(i));
  if (!valid) throw Errors.httpPathInvalid.create(text, 'a $all position is 32 hex digits (commit then prepare position)');
  const commit = Number.parseInt(text.slice(0, HALF_DIGITS), 16);
  const prepare = Number.parseInt(text.slice(HALF_DIGITS), 16);
  if (!Number.isSafeInteger(commit) || commit !== prepare) {
    throw Errors.httpPathInvalid.create(text, 'the commit and prepare halves of a $all position are the same log position here');
  }
  return commit;
}
