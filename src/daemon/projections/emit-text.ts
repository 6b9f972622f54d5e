/**
 * Writers of the text projections emit for every event (link data, the runner's metadata),
 * straight into bytes: for a few bytes a loop beats a string and a call into native code.
 */
import { copyRange } from '../../storage/log/record.js';
import { UUID_TEXT_BYTES } from '../../storage/log/uuid.js';

const AT_SIGN = 0x40;

const METADATA_V = Buffer.from('{"$v":"', 'latin1');
const METADATA_C = Buffer.from('","$c":', 'latin1');
const METADATA_P = Buffer.from(',"$p":', 'latin1');
const METADATA_CAUSED_BY = Buffer.from(',"$causedBy":"', 'latin1');
const METADATA_END = Buffer.from('"}', 'latin1');
const METADATA_FIXED_BYTES = METADATA_V.length + METADATA_C.length + METADATA_P.length + METADATA_CAUSED_BY.length + METADATA_END.length;

/** Bytes of the runner's metadata for an event caused at `position`, in epoch `epochText` (digits). */
export function emittedMetadataBytes(epochText: string, position: number): number {
  return METADATA_FIXED_BYTES + epochText.length + 2 * decimalDigits(position) + UUID_TEXT_BYTES;
}

/**
 * The runner's metadata of an emitted event up to the cause's id:
 * `{"$v":"epoch","$c":position,"$p":position,"$causedBy":"`. Returns where the id's text goes;
 * putEmittedMetadataEnd closes it after the id.
 */
export function putEmittedMetadataStart(block: Buffer, start: number, epochText: string, position: number): number {
  let at = putBytes(block, start, METADATA_V);
  at = putText(block, at, epochText);
  at = putBytes(block, at, METADATA_C);
  const digitsAt = at;
  at = putDecimal(block, at, position);
  const digitsEnd = at;
  at = putBytes(block, at, METADATA_P);
  for (let i = digitsAt; i < digitsEnd; i++) block[at++] = block[i];
  return putBytes(block, at, METADATA_CAUSED_BY);
}

export function putEmittedMetadataEnd(block: Buffer, at: number): number {
  return putBytes(block, at, METADATA_END);
}

/** Bytes of a link's data, `number@stream`. */
export function linkDataBytes(eventNumber: number, streamName: string): number {
  return decimalDigits(eventNumber) + 1 + textBytes(streamName);
}

/** A link's data, `number@stream`. */
export function putLinkData(block: Buffer, at: number, eventNumber: number, streamName: string): number {
  const numberEnd = putDecimal(block, at, eventNumber);
  block[numberEnd] = AT_SIGN;
  return putText(block, numberEnd + 1, streamName);
}

/** Copies `bytes` to `at` (a loop, for these few: see copyRange); returns where they end. */
function putBytes(target: Buffer, at: number, bytes: Buffer): number {
  copyRange(target, at, bytes, 0, bytes.length);
  return at + bytes.length;
}

/** A short text, ASCII by a loop (ids, numbers), anything else as UTF-8 by the Buffer. */
export function putText(target: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return at + target.write(text, at, 'utf8');
    target[at + i] = code;
  }
  return at + text.length;
}

/** The UTF-8 bytes of `text`, as putText writes it. */
function textBytes(text: string): number {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) return Buffer.byteLength(text, 'utf8');
  return text.length;
}

/**
 * Digits of a non-negative integer (up to 2^53) in decimal. By arithmetic, not String(value):
 * log positions pass 2^30 after the first GiB, and a string per link would be garbage. Below
 * 2^53 a tenth of an integer floors exactly.
 */
function decimalDigits(value: number): number {
  let digits = 1;
  for (let left = value; left >= 10; left = Math.floor(left / 10)) digits++;
  return digits;
}

/** A non-negative integer (up to 2^53) in decimal. */
function putDecimal(target: Buffer, at: number, value: number): number {
  const digits = decimalDigits(value);
  let rest = value;
  for (let i = digits - 1; i >= 0; i--) {
    const tenth = Math.floor(rest / 10);
    target[at + i] = 0x30 + (rest - tenth * 10);
    rest = tenth;
  }
  return at + digits;
}
