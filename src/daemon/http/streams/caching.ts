/**
 * Cache headers of reads. A page or event that can never change (a full page behind the head, a
 * numbered event) is cacheable for a year. A head or partial page carries an ETag
 * `"{version};{token}"` where the version is the stream's last event number (the log end for
 * $all) and the token stands for the media type, so one representation's ETag never validates
 * another, and for the log's content epoch, so an ETag given out before a redaction (which
 * changes events without a write) never validates the redacted content; `If-None-Match` with
 * the current ETag gets a 304.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const IMMUTABLE = 'max-age=31536000, private';
const REVALIDATE = 'max-age=0, no-cache, must-revalidate';

const tokens = new Map<string, string>();

/** A stable token for a media type: its 32-bit FNV-1a hash as a signed decimal. */
export function mediaTypeToken(mediaType: string): string {
  let token = tokens.get(mediaType);
  if (token === undefined) {
    let hash = 0x811c9dc5;
    for (let i = 0; i < mediaType.length; i++) hash = Math.imul(hash ^ mediaType.charCodeAt(i), 0x01000193);
    token = String(hash | 0);
    tokens.set(mediaType, token);
  }
  return token;
}

/** The token of a media type at content epoch `epoch` (0, no chunk ever rewritten: the media type's own token). */
function etagToken(mediaType: string, epoch: number): string {
  return epoch === 0 ? mediaTypeToken(mediaType) : mediaTypeToken(`${mediaType};${epoch}`);
}

/** The ETag value without quotes, as the JSON feed's `eTag` field shows it. */
export function etagValue(version: number, mediaType: string, epoch: number): string {
  return `${version};${etagToken(mediaType, epoch)}`;
}

/**
 * --disable-http-caching: whatever a route decided, the reply says no-cache (validators such as
 * the ETag stay, so a client may still revalidate). Registered only when the option is on.
 */
export function forbidCaching(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('Cache-Control', REVALIDATE);
    done(null, payload);
  });
}

export function setImmutable(reply: FastifyReply): void {
  reply.header('Cache-Control', IMMUTABLE).header('Vary', 'Accept');
}

/** Head and partial pages: revalidate each time, or cache `$cacheControl` seconds when the stream's metadata says so. */
export function setRevalidated(reply: FastifyReply, version: number, mediaType: string, epoch: number, cacheControlSeconds?: number): void {
  const cacheControl = cacheControlSeconds === undefined ? REVALIDATE : `max-age=${cacheControlSeconds}, private`;
  reply.header('ETag', `"${etagValue(version, mediaType, epoch)}"`).header('Cache-Control', cacheControl).header('Vary', 'Accept');
}

/** A reply with no version to validate against (metadata not yet written): revalidated, without an ETag. */
export function setUnversioned(reply: FastifyReply): void {
  reply.header('Cache-Control', REVALIDATE).header('Vary', 'Accept');
}

/**
 * True when `If-None-Match` holds the ETag the reply would carry (quotes and a weak prefix
 * optional). Anything malformed or for another media type is ignored.
 */
export function matchesIfNoneMatch(request: FastifyRequest, version: number, mediaType: string, epoch: number): boolean {
  const header = request.headers['if-none-match'];
  if (header === undefined || header === '') return false;
  const wanted = etagValue(version, mediaType, epoch);
  for (const candidate of header.split(',')) {
    let tag = candidate.trim();
    if (tag.startsWith('W/')) tag = tag.slice(2);
    if (tag.length >= 2 && tag.startsWith('"') && tag.endsWith('"')) tag = tag.slice(1, -1);
    if (tag === wanted) return true;
  }
  return false;
}

/** 304 with the validators the full reply would carry. */
export function sendNotModified(reply: FastifyReply): FastifyReply {
  reply.raw.statusMessage = 'Not Modified';
  return reply.code(304).send();
}
