/** Event and correlation ids: canonical UUID text on the API, 16 bytes in records. */

/** Value of each hex digit by character code; -1 for anything else. */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit++) {
  HEX_VALUE['0123456789abcdef'.charCodeAt(digit)] = digit;
  HEX_VALUE['0123456789ABCDEF'.charCodeAt(digit)] = digit;
}
const DASH = 45;
/** Characters (ASCII bytes) of a UUID's text form. */
export const UUID_TEXT_BYTES = 36;
/** Where each of the 16 bytes starts in the text form. */
const BYTE_OFFSETS = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

function hexAt(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code < 128 ? HEX_VALUE[code] : -1;
}

/** Checks the 8-4-4-4-12 hex form without a regular expression: this runs for every event appended. */
export function isUuid(text: string): boolean {
  if (text.length !== UUID_TEXT_BYTES) return false;
  if (text.charCodeAt(8) !== DASH || text.charCodeAt(13) !== DASH || text.charCodeAt(18) !== DASH || text.charCodeAt(23) !== DASH) return false;
  for (const offset of BYTE_OFFSETS) {
    if ((hexAt(text, offset) | hexAt(text, offset + 1)) < 0) return false;
  }
  return true;
}

/**
 * Whether a text already checked with isUuid is the nil UUID (all zeros). It identifies
 * no event: idempotency would take every event sent with it for a repeat of the first.
 */
export function isNilUuid(text: string): boolean {
  for (const offset of BYTE_OFFSETS) {
    if ((hexAt(text, offset) | hexAt(text, offset + 1)) !== 0) return false;
  }
  return true;
}

/** Writes a UUID already checked with isUuid as 16 bytes. */
export function writeUuid(buffer: Buffer, offset: number, uuid: string): void {
  for (let i = 0; i < 16; i++) {
    const at = BYTE_OFFSETS[i];
    buffer[offset + i] = (hexAt(uuid, at) << 4) | hexAt(uuid, at + 1);
  }
}

/** ASCII codes of each byte's two hex digits: entry 2b and 2b+1 for byte b. */
const HEX_CODES = new Uint8Array(512);
for (let byte = 0; byte < 256; byte++) {
  const digits = byte.toString(16).padStart(2, '0');
  HEX_CODES[2 * byte] = digits.charCodeAt(0);
  HEX_CODES[2 * byte + 1] = digits.charCodeAt(1);
}
/**
 * Writes the text form of the 16 bytes at `offset` of `bytes` into `target` at `at` (UUID_TEXT_BYTES
 * ASCII bytes, dashes included); returns whether the bytes are all zero.
 */
export function putUuidText(target: Uint8Array, at: number, bytes: Uint8Array, offset: number): boolean {
  let zero = true;
  for (let i = 0; i < 16; i++) {
    const code = 2 * bytes[offset + i];
    if (code !== 0) zero = false;
    const digitAt = at + BYTE_OFFSETS[i];
    target[digitAt] = HEX_CODES[code];
    target[digitAt + 1] = HEX_CODES[code + 1];
  }
  target[at + 8] = DASH;
  target[at + 13] = DASH;
  target[at + 18] = DASH;
  target[at + 23] = DASH;
  return zero;
}

/** The text form is laid out here, then read as one string: no intermediate strings per byte. */
const TEXT = Buffer.alloc(UUID_TEXT_BYTES, DASH);

/** Formats 16 bytes as a UUID (this runs for every event read, twice). */
export function readUuid(buffer: Buffer, offset: number): string {
  // Most correlation ids are empty: one shared string for them.
  return putUuidText(TEXT, 0, buffer, offset) ? EMPTY_UUID : TEXT.toString('latin1', 0, UUID_TEXT_BYTES);
}

export const EMPTY_UUID = '00000000-0000-0000-0000-000000000000';
