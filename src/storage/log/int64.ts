/**
 * 64-bit little-endian integers as JavaScript numbers. Positions and event numbers stay below
 * 2^53, so a number holds them exactly and no BigInt is allocated on the hot path.
 */

const TWO_32 = 0x1_0000_0000;

/**
 * Byte by byte, the low half found by subtraction: every record writes four of these, and `%`
 * on a number this large is a call into the C library (four times slower, measured).
 */
export function writeInt64(buffer: Buffer, offset: number, value: number): void {
  const high = Math.floor(value / TWO_32);
  const low = (value - high * TWO_32) >>> 0;
  buffer[offset] = low;
  buffer[offset + 1] = low >>> 8;
  buffer[offset + 2] = low >>> 16;
  buffer[offset + 3] = low >>> 24;
  buffer[offset + 4] = high;
  buffer[offset + 5] = high >> 8;
  buffer[offset + 6] = high >> 16;
  buffer[offset + 7] = high >> 24;
}

export function readInt64(buffer: Buffer, offset: number): number {
  return buffer.readInt32LE(offset + 4) * TWO_32 + buffer.readUInt32LE(offset);
}
