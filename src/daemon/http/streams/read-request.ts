/**
 * What every read route takes from its request: the query (`embed`, `format`) and the media
 * type of the reply.
 */
import type { FastifyRequest } from 'fastify';
import { MediaType, negotiate, type MediaTypeName, type Negotiated } from './media-types.js';
import { embedParam, type EmbedLevel } from './read-params.js';

/** The log as a stream name in paths. */
export const ALL = '$all';

interface ReadQuery {
  embed?: unknown;
  format?: unknown;
}

/** `?embed=`; an HTML page always shows its events at `htmlLevel`, as the protocol's HTML codec does. */
export function embedOf(request: FastifyRequest, type: MediaTypeName, htmlLevel: EmbedLevel): EmbedLevel {
  return type === MediaType.html ? htmlLevel : embedParam((request.query as ReadQuery).embed);
}

/** Content negotiation, with the common case (Accept names exactly one offered type) first. */
export function chooseType(request: FastifyRequest, offered: readonly MediaTypeName[]): Negotiated {
  const { format } = request.query as ReadQuery;
  const accept = request.headers.accept;
  if (format === undefined && accept !== undefined && offered.includes(accept as MediaTypeName)) {
    return { type: accept as MediaTypeName, unspecified: false };
  }
  return negotiate(accept, format, offered);
}
