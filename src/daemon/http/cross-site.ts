/**
 * Cross-site request forgery. A browser sends a page's form POST or `fetch(…, {mode: 'no-cors',
 * credentials: 'include'})` to any origin, with the Basic credentials an operator typed into its
 * dialog for that origin: a page on another site could otherwise create a projection that runs
 * as admin or stop the node. So a state-changing request (POST, PUT, DELETE, PATCH) that the
 * browser marks as coming from another site is refused, unless it carries something a browser
 * sends across origins only after a CORS preflight: a header no form or no-cors request may set
 * (X-Requested-With, which the console sends, or any Svc-* header), or a Content-Type other than
 * the three a form can send. A preflighted request goes without the browser's credentials here:
 * the node allows any origin (`Access-Control-Allow-Origin: *`) and never
 * `Access-Control-Allow-Credentials`, and browsers send no credentials under that combination.
 * Authorization does not count: the browser adds it to a forged request itself.
 *
 * Which requests come from another site: `Sec-Fetch-Site` `cross-site` or `same-site` (a sibling
 * host or another port of the same host is another origin), or, from a browser that sends no
 * Sec-Fetch-Site (it sends none to plain-HTTP hosts other than localhost), an `Origin` whose
 * host and port are not the request's Host. Clients that are not browsers (curl, client
 * libraries) send neither header and pass unchanged.
 */
import type { FastifyInstance } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { Errors } from '../../common/errors.js';

const STATE_CHANGING = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

/** The Content-Types a form or a no-cors request may carry (the CORS-safelisted ones). */
const FORM_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

function firstOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** `host[:port]` of `origin` and of the Host header compared, with the scheme's default port left out of both. */
function sameHost(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    const originUrl = new URL(origin);
    return originUrl.host === new URL(`${originUrl.protocol}//${host}`).host;
  } catch {
    // `Origin: null` (a sandboxed frame, a redirect) and anything unparsable are another site.
    return false;
  }
}

/** The site the browser says the request came from, when it is not this node's origin. */
function foreignSite(headers: IncomingHttpHeaders): string | undefined {
  const fetchSite = firstOf(headers['sec-fetch-site']);
  const origin = firstOf(headers.origin);
  if (fetchSite === 'same-origin') return undefined;
  if (fetchSite === 'cross-site' || fetchSite === 'same-site') return origin ?? `a ${fetchSite} page`;
  return origin !== undefined && !sameHost(origin, headers.host) ? origin : undefined;
}

/** True when the request could only have been sent after a CORS preflight, so without the browser's credentials. */
function preflighted(headers: IncomingHttpHeaders): boolean {
  if (headers['x-requested-with'] !== undefined) return true;
  const type = firstOf(headers['content-type']);
  if (type !== undefined && !FORM_TYPES.has(type.split(';')[0].trim().toLowerCase())) return true;
  return Object.keys(headers).some((name) => name.startsWith('svc-'));
}

/** Refuses forged cross-site state changes before routing, authentication or the body. */
export function refuseCrossSiteChanges(app: FastifyInstance): void {
  // A callback hook: it runs on every request, and an async one costs a promise each time.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!STATE_CHANGING.has(request.method)) {
      done();
      return;
    }
    const site = foreignSite(request.headers);
    done(site === undefined || preflighted(request.headers) ? undefined : Errors.httpCrossSiteRefused.create(request.method, site));
  });
}
