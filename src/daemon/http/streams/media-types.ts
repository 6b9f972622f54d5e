/**
 * Media types of the streams API and content negotiation. `?format=` overrides Accept; no
 * Accept or `*\/*` picks the route's first type, as clients of the wire protocol expect.
 */
import type { FastifyReply } from 'fastify';
import Negotiator from 'negotiator';
import { Errors } from '../../../common/errors.js';
import { HTML_HEADERS } from './html-view.js';

export const MediaType = {
  atomJson: 'application/vnd.svc.atom+json',
  atomXml: 'application/atom+xml',
  json: 'application/json',
  xml: 'application/xml',
  textXml: 'text/xml',
  octetStream: 'application/octet-stream',
  eventJson: 'application/vnd.svc.event+json',
  eventsJson: 'application/vnd.svc.events+json',
  eventXml: 'application/vnd.svc.event+xml',
  eventsXml: 'application/vnd.svc.events+xml',
  streamDescJson: 'application/vnd.svc.streamdesc+json',
  competingAtomJson: 'application/vnd.svc.competingatom+json',
  competingAtomXml: 'application/vnd.svc.competingatom+xml',
  textPlain: 'text/plain',
  html: 'text/html',
} as const;

export type MediaTypeName = (typeof MediaType)[keyof typeof MediaType];

const FORMATS: Record<string, MediaTypeName> = {
  json: MediaType.json,
  xml: MediaType.xml,
  atom: MediaType.atomXml,
  atomxj: MediaType.atomJson,
  text: MediaType.textPlain,
};

export interface Negotiated {
  type: MediaTypeName;
  /** True when the client named no type (no Accept, or only `*\/*`): some routes answer differently. */
  unspecified: boolean;
}

/**
 * Picks the representation for a reply from `offered` (in the route's order of preference).
 * Throws SVCDB_ERR_HTTP_NOT_ACCEPTABLE when nothing matches.
 */
export function negotiate(accept: string | undefined, format: unknown, offered: readonly MediaTypeName[]): Negotiated {
  if (format !== undefined) {
    const type = typeof format === 'string' ? FORMATS[format.toLowerCase()] : undefined;
    if (!type || !offered.includes(type)) {
      throw Errors.httpNotAcceptable.create(`?format=${JSON.stringify(format)}`, Object.keys(FORMATS).join(', '));
    }
    return { type, unspecified: false };
  }
  const header = accept?.trim() ?? '';
  if (header === '' || header === '*/*') return { type: offered[0], unspecified: true };
  const chosen = new Negotiator({ headers: { accept: header } }).mediaType([...offered]);
  if (!chosen) throw Errors.httpNotAcceptable.create(header, offered.join(', '));
  return { type: chosen as MediaTypeName, unspecified: false };
}

/** The media type of a request body without parameters, lower-cased ('' when absent). */
export function bodyMediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

export function withCharset(type: string): string {
  return type.startsWith('text/') || type.includes('json') || type.includes('xml') ? `${type}; charset=utf-8` : type;
}

/** Sends `body` as `type`; an HTML page goes with the headers that keep a browser safe from its content. */
export function sendAs(reply: FastifyReply, type: MediaTypeName, body: string | Buffer): FastifyReply {
  if (type === MediaType.html) reply.headers(HTML_HEADERS);
  return reply.type(withCharset(type)).send(body);
}
