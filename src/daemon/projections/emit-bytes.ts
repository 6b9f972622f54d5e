/**
 * The bytes of emitted events. A system projection emits a small link for every event of the log,
 * thousands per page, so the ids, data and metadata are written straight into shared buffers:
 * a string per piece and a Buffer of its own per field cost more than the writer's work on the
 * record. The bytes are those the obvious code would make (`emit-bytes.test.ts` compares them).
 */

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const SLAB_BYTES = 64 * 1024;

/** Buffers handed out as views of larger blocks; a block lives as long as any view of it. */
export class ByteSlab {
  private block = Buffer.allocUnsafeSlow(0);
  private used = 0;

  /** Room for `bytes` more; a new block when the present one is short of it. */
  private reserve(bytes: number): void {
    if (this.used + bytes <= this.block.length) return;
    this.block = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, bytes));
    this.used = 0;
  }

  /** `text` as UTF-8. */
  utf8(text: string): Buffer {
    this.reserve(text.length * 3);
    const start = this.used;
    this.used = putText(this.block, start, text);
    return this.block.subarray(start, this.used);
  }

  /**
   * The metadata of an emitted event without metadata of its own:
   * `{"$v":"epoch","$c":position,"$p":position,"$causedBy":"eventId"}`.
   */
  emittedMetadata(epochText: string, position: number, causedBy: string): Buffer {
    this.reserve(METADATA_FIXED_BYTES + 3 * epochText.length + 2 * 16 + 3 * causedBy.length);
    const { block } = this;
    const start = this.used;
    let at = putBytes(block, start, METADATA_V);
    at = putText(block, at, epochText);
    at = putBytes(block, at, METADATA_C);
    const digitsAt = at;
    at = putDecimal(block, at, position);
    const digitsEnd = at;
    at = putBytes(block, at, METADATA_P);
    for (let i = digitsAt; i < digitsEnd; i++) block[at++] = block[i];
    at = putBytes(block, at, METADATA_CAUSED_BY);
    at = putText(block, at, causedBy);
    at = putBytes(block, at, METADATA_END);
    this.used = at;
    return block.subarray(start, at);
  }
}

const METADATA_V = Buffer.from('{"$v":"', 'latin1');
const METADATA_C = Buffer.from('","$c":', 'latin1');
const METADATA_P = Buffer.from(',"$p":', 'latin1');
const METADATA_CAUSED_BY = Buffer.from(',"$causedBy":"', 'latin1');
const METADATA_END = Buffer.from('"}', 'latin1');
const METADATA_FIXED_BYTES = METADATA_V.length + METADATA_C.length + METADATA_P.length + METADATA_CAUSED_BY.length + METADATA_END.length;

/** Byte by byte: for a few bytes a loop beats the call into native code. */
function putBytes(target: Buffer, at: number, bytes: Buffer): number {
  for (let i = 0; i < bytes.length; i++) target[at + i] = bytes[i];
  return at + bytes.length;
}

/** A short text, ASCII by a loop (ids, numbers), anything else as UTF-8 by the Buffer. */
function putText(target: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return at + target.write(text, at, 'utf8');
    target[at + i] = code;
  }
  return at + text.length;
}

/** A non-negative integer (up to 2^53) in decimal; in small-integer arithmetic below 2^30. */
function putDecimal(target: Buffer, at: number, value: number): number {
  if (value >= 0x4000_0000) return putText(target, at, String(value));
  let rest = value | 0;
  let digits = 1;
  for (let left = rest; left >= 10; left = (left / 10) | 0) digits++;
  for (let i = digits - 1; i >= 0; i--) {
    const tenth = (rest / 10) | 0;
    target[at + i] = 0x30 + rest - tenth * 10;
    rest = tenth;
  }
  return at + digits;
}

/** Where the 14 hex digits of the position go in an emitted id, around its dashes and version. */
const POSITION_DIGIT_AT = [9, 10, 11, 12, 15, 16, 17, 20, 21, 22, 24, 25, 26, 27];
/** The id being formatted; the dashes and the version digit never change. */
const idBytes = Buffer.from('00000000-0000-4000-8000-000000000000', 'latin1');

/**
 * The text of a UUID laid out as emittedEventId describes, built in one buffer: a single flat
 * string comes out, which the checks and the encoding of the writer then read quickly.
 */
export function formatEmittedId(mixed: number, position: number, prefixDigits: string, index: number): string {
  // The position as 8 low and 6 high hex digits (it is below 2^53).
  let low = position >>> 0;
  let high = Math.floor(position / 0x1_0000_0000);
  for (let k = 13; k >= 6; k--, low >>>= 4) idBytes[POSITION_DIGIT_AT[k]] = HEX_DIGITS[low & 15];
  for (let k = 5; k >= 0; k--, high >>>= 4) idBytes[POSITION_DIGIT_AT[k]] = HEX_DIGITS[high & 15];
  let front = mixed >>> 0;
  for (let i = 7; i >= 0; i--, front >>>= 4) idBytes[i] = HEX_DIGITS[front & 15];
  idBytes[19] = HEX_DIGITS[8 | (index & 3)];
  for (let i = 0; i < 4; i++) idBytes[28 + i] = prefixDigits.charCodeAt(i);
  let rest = (index >>> 2) & 0xffff;
  for (let i = 35; i >= 32; i--, rest >>>= 4) idBytes[i] = HEX_DIGITS[rest & 15];
  return idBytes.toString('latin1', 0, 36);
}
