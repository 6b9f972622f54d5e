/** Event and correlation ids: canonical UUID text on the API, 16 bytes in records. */

const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export function isUuid(text: string): boolean {
  return UUID_PATTERN.test(text);
}

export function writeUuid(buffer: Buffer, offset: number, uuid: string): void {
  buffer.write(uuid.replace(/-/g, ''), offset, 16, 'hex');
}

export function readUuid(buffer: Buffer, offset: number): string {
  const hex = buffer.toString('hex', offset, offset + 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const EMPTY_UUID = '00000000-0000-0000-0000-000000000000';
