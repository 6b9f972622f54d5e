// Cross-site request forgery, through the real server: a state-changing request that a browser
// marks as coming from another site (Sec-Fetch-Site cross-site or same-site, or an Origin that is
// not the Host) is refused with 400 SVCDB_ERR_HTTP_CROSS_SITE_REFUSED before authentication,
// unless it carries what a browser sends across origins only after a CORS preflight (so without
// its credentials): X-Requested-With, an Svc-* header, a Content-Type no form can send. Clients
// that are not browsers send neither header and pass; reads keep the reference's CORS headers.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { Errors } from '../../src/common/errors.js';
import { adminFetch } from '../helpers/auth.js';
import { startNode } from '../helpers/node.js';

const node = await startNode(t);
const { host } = new URL(node.url);

async function codeOf(response: Response): Promise<string | undefined> {
  const text = await response.text();
  try {
    return (JSON.parse(text) as { code?: string }).code;
  } catch {
    return undefined;
  }
}

async function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; code?: string }> {
  const response = await adminFetch(`${node.url}${path}`, { method, headers, body });
  return { status: response.status, code: await codeOf(response) };
}

const FORM = { 'content-type': 'text/plain' };

t.test('a state change a page of another site could send is refused, before authentication', async (t) => {
  const forged: Array<[string, string, Record<string, string>]> = [
    ['POST', '/streams/forged', { origin: 'http://evil.example', ...FORM }],
    ['POST', '/streams/forged', { origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' }],
    ['POST', '/streams/forged', { origin: 'http://evil.example', 'content-type': 'multipart/form-data; boundary=x' }],
    ['POST', '/streams/forged', { origin: 'http://evil.example', 'content-type': ' Text/Plain ; charset=utf-8' }],
    ['POST', '/streams/forged', { 'sec-fetch-site': 'cross-site', ...FORM }],
    ['POST', '/streams/forged', { 'sec-fetch-site': 'same-site', origin: `http://${host}`, ...FORM }],
    ['POST', '/streams/forged', { origin: 'null', ...FORM }],
    ['POST', '/streams/forged', { origin: `http://${host.replace(/:\d+$/, ':1')}`, ...FORM }],
    ['DELETE', '/streams/forged', { origin: 'http://evil.example' }],
    ['PUT', '/users/ops', { 'sec-fetch-site': 'cross-site', ...FORM }],
    ['POST', '/users/ops/command/disable', { origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' }],
    ['POST', '/subscriptions/forged/group/replayParked', { origin: 'http://evil.example' }],
    // The browser adds ambient Basic credentials itself: Authorization proves nothing.
    ['POST', '/streams/forged', { origin: 'http://evil.example', authorization: 'Basic YWRtaW46Y2hhbmdlaXQ=', ...FORM }],
  ];
  for (const [method, path, headers] of forged) {
    const answer = await send(method, path, headers, method === 'POST' || method === 'PUT' ? 'x' : undefined);
    t.same(answer, { status: 400, code: Errors.httpCrossSiteRefused.code }, `${method} ${path} ${JSON.stringify(headers)}`);
  }
  const anonymous = await fetch(`${node.url}/streams/forged`, { method: 'POST', headers: { origin: 'http://evil.example', ...FORM }, body: 'x' });
  t.equal(await codeOf(anonymous), Errors.httpCrossSiteRefused.code, 'refused before credentials are asked for');
  t.equal(anonymous.headers.get('www-authenticate'), null, 'without a challenge that would open the browser\'s dialog');
  const read = await adminFetch(`${node.url}/streams/forged`, { headers: { accept: 'application/json' } });
  t.equal(read.status, 404, 'nothing was written');
});

t.test('what only a preflighted request can carry lets a cross-origin change through', async (t) => {
  const event = { 'svc-eventtype': 'T', 'svc-eventid': randomUUID() };
  const allowed: Array<[string, Record<string, string>]> = [
    ['application/json', { origin: 'http://app.example', 'content-type': 'application/json', 'svc-eventid': randomUUID(), 'svc-eventtype': 'T' }],
    ['X-Requested-With', { origin: 'http://app.example', 'sec-fetch-site': 'cross-site', 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest', ...event }],
    ['an Svc-* header', { 'sec-fetch-site': 'cross-site', 'content-type': 'application/octet-stream', ...event, 'svc-eventid': randomUUID() }],
    ['a same-origin page', { 'sec-fetch-site': 'same-origin', origin: `http://${host}`, 'content-type': 'application/json', 'svc-eventtype': 'T', 'svc-eventid': randomUUID() }],
    ['an Origin that is the Host', { origin: `http://${host}`, 'content-type': 'application/json', 'svc-eventtype': 'T', 'svc-eventid': randomUUID() }],
  ];
  for (const [what, headers] of allowed) {
    const answer = await send('POST', '/streams/preflighted', headers, '{}');
    t.equal(answer.status, 201, `${what}: 201`);
  }
  const viaHeader = await send('POST', '/users/ops/command/enable', { origin: 'http://app.example', ...FORM, 'x-requested-with': 'XMLHttpRequest' });
  t.equal(viaHeader.status, 200, 'a form type with X-Requested-With');
});

t.test('clients that are not browsers pass unchanged, in the reference clients\' shapes', async (t) => {
  const batch = JSON.stringify([{ eventId: randomUUID(), eventType: 'T', data: { a: 1 } }]);
  t.equal((await send('POST', '/streams/clients', { 'content-type': 'application/vnd.svc.events+json' }, batch)).status, 201, 'a batch');
  t.equal((await send('POST', '/streams/clients', { 'content-type': 'application/json', 'svc-eventtype': 'T', 'svc-eventid': randomUUID(), 'svc-expectedversion': '0' }, '{}')).status, 201, 'a raw event');
  t.equal((await send('POST', '/streams/clients/metadata', { 'content-type': 'application/json', 'svc-eventid': randomUUID() }, '{"$maxCount":5}')).status, 201, 'metadata');
  t.equal((await send('POST', '/users/ops/command/disable', { 'content-type': 'application/x-www-form-urlencoded' })).status, 200, 'curl -X POST -d ""');
  t.equal((await send('POST', '/users/ops/command/enable', {})).status, 200, 'a bodiless POST');
  t.equal((await send('DELETE', '/streams/clients', { 'svc-hardelete': 'false' })).status, 204, 'a delete');
});

t.test('reads keep the reference\'s CORS headers and never allow credentials', async (t) => {
  const read = await adminFetch(`${node.url}/streams/%24all`, { headers: { origin: 'http://evil.example', accept: 'application/json' } });
  t.equal(read.status, 200);
  t.equal(read.headers.get('access-control-allow-origin'), '*');
  t.equal(read.headers.get('access-control-allow-credentials'), null);
  const preflight = await fetch(`${node.url}/streams/x`, { method: 'OPTIONS', headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' } });
  t.equal(preflight.status, 200);
  t.equal(preflight.headers.get('access-control-allow-origin'), '*');
  t.equal(preflight.headers.get('access-control-allow-credentials'), null);
});
