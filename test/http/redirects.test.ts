// Redirects never lead off the node's origin: a path that starts with `//` or `/\` (which
// browsers read as another host) and Host or X-Forwarded-* values that are not a host, port or
// path cannot make a Location point elsewhere; a 307 says "Temporary Redirect". A trailing-slash
// redirect gives the absolute URL on the Host the request arrived with (`$all` unescaped), and
// no shared cache may keep it.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { ADMIN_AUTH } from '../helpers/auth.js';
import { startNode } from '../helpers/node.js';

interface RawReply {
  status: number;
  statusMessage: string;
  location: string | undefined;
  cacheControl: string | undefined;
  body: string;
}

/** One request with exactly this path and these headers (fetch would normalize both). */
function rawRequest(url: string, method: string, path: string, headers: Record<string, string> = {}, body = ''): Promise<RawReply> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const request = http.request({ hostname, port, method, path, headers: { authorization: ADMIN_AUTH, ...headers } }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({
        status: response.statusCode!, statusMessage: response.statusMessage!, location: response.headers.location,
        cacheControl: response.headers['cache-control'], body,
      }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

const node = await startNode(t);
const origin = new URL(node.url).origin;

t.test('a trailing slash redirects to the absolute URL of a path on this origin, however many slashes lead', async (t) => {
  const cases: Array<[string, string]> = [
    ['//evil.example/', '/evil.example'],
    ['///evil.example/', '/evil.example'],
    ['/\\evil.example/', '/evil.example'],
    ['/\\/evil.example/x/', '/evil.example/x'],
    ['//evil.example/streams/x/?a=1', '/evil.example/streams/x?a=1'],
    ['/streams/x/', '/streams/x'],
    ['/streams/x//', '/streams/x'],
    ['/streams/x/metadata/', '/streams/x/metadata'],
    ['/streams/%24all/', '/streams/$all'],
    ['/streams/$all/', '/streams/$all'],
    // Escapes that change what the path means stay escaped.
    ['/streams/a%2Fb/', '/streams/a%2Fb'],
    ['/streams/%2E%2E/', '/streams/%2E%2E'],
  ];
  for (const [path, expected] of cases) {
    const reply = await rawRequest(node.url, 'GET', path);
    t.equal(reply.status, 307, `${path}: 307`);
    t.equal(reply.statusMessage, 'Temporary Redirect', `${path}: the reason phrase matches the status`);
    t.equal(reply.location, `${origin}${expected}`, `${path}: Location ${origin}${expected}`);
    t.equal(new URL(reply.location!).origin, origin, `${path}: the Location stays on this origin`);
    t.equal(reply.cacheControl, 'max-age=31536000, private', `${path}: no shared cache keeps the redirect`);
    t.equal(reply.body, 'Moved Permanently', `${path}: the protocol's body`);
  }
});

t.test('a trailing-slash redirect keeps the Host the request arrived with, and never a host that is not one', async (t) => {
  const { port } = new URL(node.url);
  const named = await rawRequest(node.url, 'GET', '/streams/x/', { host: `localhost:${port}` });
  t.equal(named.location, `http://localhost:${port}/streams/x`, 'the Host the client used');
  for (const host of ['user@evil.example', 'evil.example/path', '//evil.example']) {
    const reply = await rawRequest(node.url, 'GET', '//evil.example/', { host });
    t.equal(new URL(reply.location!).origin, origin, `Host ${host}: the Location is on ${origin}`);
    t.equal(new URL(reply.location!).pathname, '/evil.example', `Host ${host}: the path is a path on this node`);
  }
});

t.test('the redirect of an append without Svc-EventId stays on the host the client reached', async (t) => {
  const append = (headers: Record<string, string>) => rawRequest(node.url, 'POST', '/streams/redirected', {
    'content-type': 'application/json', 'svc-eventtype': 'T', ...headers,
  }, '{}');
  const plain = await append({});
  t.equal(plain.status, 307);
  t.equal(plain.statusMessage, 'Temporary Redirect');
  t.match(plain.location, new RegExp(`^${node.url}/streams/redirected/incoming/[0-9a-f-]{36}$`));

  const hostile: Array<Record<string, string>> = [
    { host: 'user@evil.example' },
    { host: 'evil.example/path' },
    { 'x-forwarded-host': 'evil.example\\@node' },
    { 'x-forwarded-host': '//evil.example' },
    { 'x-forwarded-proto': 'javascript' },
  ];
  for (const headers of hostile) {
    const reply = await append(headers);
    t.equal(reply.status, 307, JSON.stringify(headers));
    t.equal(new URL(reply.location!).origin, origin, `${JSON.stringify(headers)}: the Location is on ${origin}, not elsewhere`);
  }
  const prefixed = await append({ 'x-forwarded-prefix': '//evil.example' });
  t.equal(new URL(prefixed.location!).origin, origin, 'a prefix of two slashes is a path, not a host');
  t.match(prefixed.location, new RegExp(`^${node.url}/evil.example/streams/redirected/incoming/`));
});

t.test('a proxy\'s well-formed X-Forwarded-* headers are still honoured', async (t) => {
  const reply = await rawRequest(node.url, 'POST', '/streams/proxied', {
    'content-type': 'application/json', 'svc-eventtype': 'T', 'svc-eventid': randomUUID(),
    'x-forwarded-proto': 'https', 'x-forwarded-host': 'db.example.com', 'x-forwarded-port': '8443', 'x-forwarded-prefix': '/svc',
  }, '{}');
  t.equal(reply.status, 201);
  t.equal(reply.location, 'https://db.example.com:8443/svc/streams/proxied/0');
});
