/**
 * The operator's web console at `/web`: a single page and its assets, built from `web/` into
 * `dist/console/` and read by the ConsoleAssets service. The console is only files; everything
 * it shows it asks of the API with the user's own credentials, under the API's ACLs.
 *
 * Every console reply carries a content security policy that lets the page run only the node's
 * own scripts and styles and talk only to the node, and the page may not be framed. The index
 * names assets by content hash, so they are cached for a year and the index never.
 *
 * A browser pointed at the node's root (`/`, asking for `text/html`) is sent to the console; any
 * other client gets the 404 it always got there.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { Errors } from '../../common/errors.js';
import type { ConsoleAssets, ConsoleFile, ContentEncoding } from '../services/console-assets.js';
import { resource } from './routing.js';

export const CONSOLE_PATH = '/web';

export const CONSOLE_HEADERS = {
  'Content-Security-Policy': [
    "default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "img-src 'self'",
    "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
} as const;

const IMMUTABLE = 'public, max-age=31536000, immutable';
const ENCODINGS: ContentEncoding[] = ['br', 'gzip', 'identity'];

export interface ConsoleRoutesOptions {
  assets: ConsoleAssets;
}

function send(request: FastifyRequest, reply: FastifyReply, file: ConsoleFile, cacheControl: string): FastifyReply {
  const offered = ENCODINGS.filter((encoding) => file.bodies[encoding] !== undefined);
  const encoding = (new Negotiator(request).encoding(offered) ?? 'identity') as ContentEncoding;
  const body = file.bodies[encoding] ?? file.bodies.identity;
  reply.headers(CONSOLE_HEADERS).header('Cache-Control', cacheControl).header('Vary', 'Accept-Encoding').type(file.contentType);
  if (encoding !== 'identity' && file.bodies[encoding] !== undefined) reply.header('Content-Encoding', encoding);
  return reply.send(body);
}

/** Whether the client lists `text/html` among what it accepts, as browsers do and API clients do not. */
function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return accept !== undefined && new Negotiator(request).mediaTypes().includes('text/html');
}

export const consoleRoutes: FastifyPluginAsync<ConsoleRoutesOptions> = async (app, { assets }) => {
  resource(app, CONSOLE_PATH, {
    GET: { handler: async (request, reply) => send(request, reply, assets.index, 'no-cache') },
  });
  resource(app, `${CONSOLE_PATH}/assets/:name`, {
    GET: {
      handler: async (request, reply) => {
        const file = assets.asset((request.params as { name: string }).name);
        if (file === undefined) throw Errors.httpNotFound.create(request.method, request.url);
        return send(request, reply, file, IMMUTABLE);
      },
    },
  });
  // Where the wire protocol sends a browser that asks for `/projections`.
  resource(app, `${CONSOLE_PATH}/projections.htm`, {
    GET: { handler: async (_request, reply) => reply.redirect(`${CONSOLE_PATH}#/projections`, 302) },
  });
  app.get('/', async (request, reply) => {
    if (!wantsHtml(request)) return reply.callNotFound();
    return reply.redirect(CONSOLE_PATH, 302);
  });
};
