/**
 * `/streams/x/` means `/streams/x`: the client is sent there with a 307 (method kept), before
 * routing could read the empty last segment as a parameter. `/users/` is a route of its own.
 *
 * The Location is absolute, as the wire protocol gives it: this request's scheme and host (the
 * Host it arrived with, or a proxy's well-formed X-Forwarded-* headers, as every link) and the
 * path without its trailing slashes. The path keeps one leading slash, so `//evil.example/`
 * stays a path on this node.
 */
import type { FastifyInstance } from 'fastify';
import { baseUrl, sameOriginPath } from './streams/urls.js';

// The users API answers at `/users/` itself, as its clients send it.
const SLASHED_ROUTES = new Set(['/users/']);

// Escapes of characters a path carries as they are (`%24all` → `$all`, as the protocol's redirect
// shows them); `%2F`, `%25` and the rest stay escaped, so the path means what it meant.
const NEEDLESS_ESCAPE = /%(2[146-9A-Ca-c]|3[AaBbDd]|40|5[Ff]|7[Ee])/g;

function unescapeNeedless(path: string): string {
  return path.replace(NEEDLESS_ESCAPE, (_escape, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

export function redirectTrailingSlash(app: FastifyInstance): void {
  // A callback hook: it runs on every request, and an async one costs a promise each time.
  app.addHook('onRequest', (request, reply, done) => {
    const at = request.url.indexOf('?');
    const path = at < 0 ? request.url : request.url.slice(0, at);
    if (path.length <= 1 || !path.endsWith('/') || SLASHED_ROUTES.has(path)) {
      done();
      return;
    }
    const target = baseUrl(request) + sameOriginPath(unescapeNeedless(path.replace(/[/\\]+$/, ''))) + (at < 0 ? '' : request.url.slice(at));
    reply.raw.statusMessage = 'Temporary Redirect';
    // The Location is built from this request's Host and X-Forwarded-* headers, so no shared cache
    // may keep it for other clients (the protocol says public; a poisoned proxy entry would send
    // everyone elsewhere). The body is the wire protocol's.
    reply.code(307).header('Location', target).header('Cache-Control', 'max-age=31536000, private')
      .type('text/plain; charset=utf-8').send('Moved Permanently');
  });
}
