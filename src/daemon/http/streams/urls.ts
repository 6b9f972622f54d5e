/**
 * Absolute URLs in feeds and Location headers, built from the request as the client sees it:
 * the Host header, or X-Forwarded-Proto/-Host/-Port/-Prefix from a proxy in front. A value that
 * is not a host name, a port or a path is ignored, so a link never leads off to another origin.
 */
import type { FastifyRequest } from 'fastify';
import { eventNumberText } from '../../../storage/streams/stream-metadata.js';
import { pathSegment } from '../path-segment.js';

// A DNS name or IPv4 address, or an IPv6 address in brackets; an optional port.
const HOST = /^(?:[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
const PATH_CHARACTERS = /^[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/;

function firstValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.split(',')[0].trim() || undefined;
}

/**
 * `path` with one leading slash: browsers read `//host/x` and `/\host/x` as a link to another
 * host, so a Location or link never starts with two of them.
 */
export function sameOriginPath(path: string): string {
  return `/${path.replace(/^[/\\]+/, '')}`;
}

/** The address the client reached, for a request whose Host header is not a host. */
function localHost(request: FastifyRequest): string {
  const { localAddress, localPort } = request.socket;
  const address = localAddress?.startsWith('::ffff:') ? localAddress.slice(7) : localAddress ?? 'localhost';
  return `${address.includes(':') ? `[${address}]` : address}:${localPort}`;
}

function protocolOf(request: FastifyRequest): string {
  const forwarded = firstValue(request.headers['x-forwarded-proto'])?.toLowerCase();
  return forwarded === 'http' || forwarded === 'https' ? forwarded : request.protocol;
}

function hostOf(request: FastifyRequest): string {
  const forwarded = firstValue(request.headers['x-forwarded-host']);
  let host = forwarded !== undefined && HOST.test(forwarded) ? forwarded : request.headers.host;
  if (host === undefined || !HOST.test(host)) host = localHost(request);
  const port = firstValue(request.headers['x-forwarded-port']);
  return port && /^\d{1,5}$/.test(port) ? `${host.replace(/:\d+$/, '')}:${port}` : host;
}

function prefixOf(request: FastifyRequest): string {
  const prefix = (firstValue(request.headers['x-forwarded-prefix']) ?? '').replace(/\/+$/, '');
  return prefix === '' || !PATH_CHARACTERS.test(prefix) ? '' : sameOriginPath(prefix);
}

/** `http://host:port[/prefix]` for this request. */
export function baseUrl(request: FastifyRequest): string {
  return `${protocolOf(request)}://${hostOf(request)}${prefixOf(request)}`;
}

/** A stream name as a path segment: everything escaped, `$` included (`$$x` → `%24%24x`), `.` and `..` too. */
export function escapeStream(streamName: string): string {
  return pathSegment(streamName);
}

export function streamUrl(base: string, streamName: string): string {
  return `${base}/streams/${escapeStream(streamName)}`;
}

export function eventUrl(base: string, streamName: string, eventNumber: number): string {
  return `${streamUrl(base, streamName)}/${eventNumberText(eventNumber)}`;
}
