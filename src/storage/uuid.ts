/** Event and correlation ids: canonical UUID text on the API, 16 bytes in records. */

const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export function isUuid(text: string): boolean {
  return UUID_PATTERN.test(text);
}

export function writeUuid(buffer: Buffer, offset: number, uuid: string): void {
  buffer.write(uuid.replace(/-/g, ''), offset, 16, 'hex');
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** Formats 16 bytes as a UUID; a table lookup per byte, as this runs for every event read. */
export function readUuid(buffer: Buffer, offset: number): string {
  const b = (i: number) => HEX[buffer[offset + i]];
  return b(0) + b(1) + b(2) + b(3) + '-' + b(4) + b(5) + '-' + b(6) + b(7) + '-' + b(8) + b(9) + '-' +
    b(10) + b(11) + b(12) + b(13) + b(14) + b(15);
}

export const EMPTY_UUID = '00000000-0000-0000-0000-000000000000';
