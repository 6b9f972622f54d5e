/**
 * `/streams/x/` means `/streams/x`: the client is sent there with a 307 (method kept), before
 * routing could read the empty last segment as a parameter. `/users/` is a route of its own.
 */
import type { FastifyInstance } from 'fastify';
import { sameOriginPath } from './streams/urls.js';

// The users API answers at `/users/` itself, as its clients send it.
const SLASHED_ROUTES = new Set(['/users/']);

export function redirectTrailingSlash(app: FastifyInstance): void {
  // A callback hook: it runs on every request, and an async one costs a promise each time.
  app.addHook('onRequest', (request, reply, done) => {
    const at = request.url.indexOf('?');
    const path = at < 0 ? request.url : request.url.slice(0, at);
    if (path.length <= 1 || !path.endsWith('/') || SLASHED_ROUTES.has(path)) {
      done();
      return;
    }
    const target = sameOriginPath(path.replace(/[/\\]+$/, '')) + (at < 0 ? '' : request.url.slice(at));
    reply.raw.statusMessage = 'Temporary Redirect';
    // The body is the wire protocol's.
    reply.code(307).header('Location', target).header('Cache-Control', 'max-age=31536000, public')
      .type('text/plain; charset=utf-8').send('Moved Permanently');
  });
}
