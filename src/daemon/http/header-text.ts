/**
 * Request header values as text. Node hands a header's bytes over one character per byte
 * (Latin-1); the reference's server decodes them as UTF-8 and refuses bytes that are not, so
 * `Svc-EventType: café` sent as UTF-8 is the event type café, stored as the client sent it.
 * Every header that carries text (an event type, a login or group name, a connection name) is
 * read through here.
 */
import type { FastifyRequest } from 'fastify';
import { Errors } from '../../common/errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Every character a single byte below 0x80: most headers, left as they are. */
function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return false;
  }
  return true;
}

/** The UTF-8 text of a header value as Node gives it; a 400 naming `label` when its bytes are not UTF-8. */
export function decodeHeaderText(value: string, label: string): string {
  if (isAscii(value)) return value;
  try {
    return utf8.decode(Buffer.from(value, 'latin1'));
  } catch {
    throw Errors.httpHeaderInvalid.create(label, 'its bytes are not UTF-8; send header text encoded as UTF-8');
  }
}

/** The first value of header `label` (any case) as UTF-8 text, or undefined when absent. */
export function headerText(request: FastifyRequest, label: string): string | undefined {
  const value = request.headers[label.toLowerCase()];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : decodeHeaderText(first, label);
}
