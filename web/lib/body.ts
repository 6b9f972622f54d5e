/**
 * How an event's data or metadata is shown: JSON pretty-printed, text as it is, or bytes in hex.
 * The result is always plain text, which the page puts in a text node: nothing in an event's
 * bytes is ever read as markup.
 */
import { reindentJson } from './json-text.js';

export type BodyView = 'json' | 'text' | 'hex';

/** `text` re-indented when it is JSON, undefined when it is not; numbers keep every digit. */
export const prettyJson = reindentJson;

const HEX_ROW_BYTES = 16;

/** Bytes as hex rows: offset, sixteen bytes, and their printable ASCII. */
export function hexDump(bytes: Uint8Array): string {
  const rows: string[] = [];
  for (let offset = 0; offset < bytes.length; offset += HEX_ROW_BYTES) {
    const row = bytes.subarray(offset, offset + HEX_ROW_BYTES);
    const hex = [...row].map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
    const ascii = [...row].map((byte) => (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : '.')).join('');
    rows.push(`${offset.toString(16).padStart(8, '0')}  ${hex.padEnd(HEX_ROW_BYTES * 3 - 1)}  ${ascii}`);
  }
  return rows.join('\n');
}

/** The view to start with: JSON when the bytes parse as JSON, text when they are UTF-8, else hex. */
export function defaultView(bytes: Uint8Array): BodyView {
  const text = utf8(bytes);
  if (text === undefined) return 'hex';
  return prettyJson(text) === undefined ? 'text' : 'json';
}

export function utf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The bytes as the chosen view shows them. */
export function renderBody(bytes: Uint8Array, view: BodyView): string {
  if (view === 'hex') return hexDump(bytes);
  const text = utf8(bytes) ?? new TextDecoder().decode(bytes);
  if (view === 'json') return prettyJson(text) ?? text;
  return text;
}
