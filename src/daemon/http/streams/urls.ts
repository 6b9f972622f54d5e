/**
 * Absolute URLs in feeds and Location headers, built from the request as the client sees it:
 * the Host header, or X-Forwarded-Proto/-Host/-Port/-Prefix from a proxy in front.
 */
import type { FastifyRequest } from 'fastify';

function firstValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.split(',')[0].trim() || undefined;
}

/** `http://host:port[/prefix]` for this request. */
export function baseUrl(request: FastifyRequest): string {
  const headers = request.headers;
  const protocol = firstValue(headers['x-forwarded-proto']) ?? request.protocol;
  let host = firstValue(headers['x-forwarded-host']) ?? headers.host ?? `${request.hostname}`;
  const port = firstValue(headers['x-forwarded-port']);
  if (port && /^\d+$/.test(port)) host = `${host.replace(/:\d+$/, '')}:${port}`;
  const prefix = (firstValue(headers['x-forwarded-prefix']) ?? '').replace(/\/+$/, '');
  return `${protocol}://${host}${prefix && !prefix.startsWith('/') ? `/${prefix}` : prefix}`;
}

/** A stream name as a path segment: everything escaped, `$` included (`$$x` → `%24%24x`). */
export function escapeStream(streamName: string): string {
  return encodeURIComponent(streamName).replace(/\$/g, '%24');
}

export function streamUrl(base: string, streamName: string): string {
  return `${base}/streams/${escapeStream(streamName)}`;
}

export function eventUrl(base: string, streamName: string, eventNumber: number): string {
  return `${streamUrl(base, streamName)}/${eventNumber}`;
}
