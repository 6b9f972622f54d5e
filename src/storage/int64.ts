/**
 * 64-bit little-endian integers as JavaScript numbers. Positions and event numbers stay below
 * 2^53, so a number holds them exactly and no BigInt is allocated on the hot path.
 */

const TWO_32 = 0x1_0000_0000;

export function writeInt64(buffer: Buffer, offset: number, value: number): void {
  const low = value % TWO_32;
  const high = Math.floor(value / TWO_32);
  buffer.writeUInt32LE(low < 0 ? low + TWO_32 : low, offset);
  buffer.writeInt32LE(high, offset + 4);
}

export function readInt64(buffer: Buffer, offset: number): number {
  return buffer.readInt32LE(offset + 4) * TWO_32 + buffer.readUInt32LE(offset);
}
