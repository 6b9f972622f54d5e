/**
 * A request with an empty body is read as having none, whatever its Content-Type: common HTTP
 * clients send `Content-Type: application/x-www-form-urlencoded` (or application/json) on every
 * bodiless POST, and a route that reads no body (the admin commands, enabling a user) answers
 * them as it answers the same request without the header. A body that is there still needs a
 * type the route reads: the catch-all refuses it with the 415 of any unsupported type.
 *
 * Registered on the root before the resource plugins, which inherit it; the streams,
 * subscriptions and projections plugins, which read any type themselves, replace it.
 */
import type { FastifyInstance } from 'fastify';
import { Errors } from '../../common/errors.js';

export function readEmptyBodiesAsNone(app: FastifyInstance): void {
  // fastify's JSON parser refuses an empty body (FST_ERR_CTP_EMPTY_JSON_BODY); a body that is there
  // still goes through it, with its guard against __proto__ and constructor keys.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, undefined);
    else void json(request, body as string, done);
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    if ((body as Buffer).length === 0) done(null, undefined);
    else done(Errors.httpMediaType.create(request.headers['content-type'] ?? ''), undefined);
  });
}
