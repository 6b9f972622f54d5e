// Svc-TrustedAuth: the principal a trusted proxy asserts, believed only with --enable-trusted-auth,
// checked against endpoint access and stream ACLs like any user, and ignored otherwise. The app is
// started on its own over a node's services: `svcdb serve` takes trusted auth only with TLS.
import { randomUUID } from 'node:crypto';
import { get as httpGet } from 'node:http';
import t from 'tap';
import { parseTrustedAuth } from '../../src/daemon/security/trusted-auth.js';
import { ADMIN_AUTH, basicAuth } from '../helpers/auth.js';
import { startApp, startNode, type TestNode } from '../helpers/node.js';

t.test('the header names a login and optionally its groups', async (t) => {
  t.same(parseTrustedAuth('alice'), { name: 'alice', groups: [] });
  t.same(parseTrustedAuth('ops;$ops'), { name: 'ops', groups: ['$ops'] });
  t.same(parseTrustedAuth(' bob ; sales , $admins '), { name: 'bob', groups: ['sales', '$admins'] }, 'spaces around names are dropped');
  for (const header of ['', ' ', ';sales', 'a:b', 'a/b', '$system', 'bob;', 'bob;sales,,ops']) {
    t.throws(() => parseTrustedAuth(header), { code: 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID', message: /Svc-TrustedAuth must be/ }, JSON.stringify(header));
  }
});

async function get(node: TestNode, path: string, headers: Record<string, string>) {
  const response = await fetch(node.url + path, { headers: { accept: 'application/json', ...headers } });
  const body = await response.text();
  return { status: response.status, code: body.startsWith('{') ? (JSON.parse(body) as { code?: string }).code : undefined, challenge: response.headers.get('www-authenticate') };
}

async function append(node: TestNode, stream: string, auth: string, metadata?: unknown): Promise<void> {
  const path = metadata === undefined ? `/streams/${stream}` : `/streams/${stream}/metadata`;
  const response = await fetch(node.url + path, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json', 'svc-eventid': randomUUID(), ...(metadata === undefined ? { 'svc-eventtype': 'Tested' } : {}) },
    body: JSON.stringify(metadata ?? { a: 1 }),
  });
  if (response.status !== 201) throw new Error(`append to ${path}: ${response.status} ${await response.text()}`);
}

t.test('with trusted auth on, the asserted principal is what access and ACLs see', async (t) => {
  const node = await startApp(t, { access: { enableTrustedAuth: true } });
  await append(node, 'carols', ADMIN_AUTH);
  await append(node, 'carols', ADMIN_AUTH, { $acl: { $r: ['carol', 'auditors'] } });
  const trusted = (value: string) => ({ 'svc-trustedauth': value });

  t.equal((await get(node, '/streams/carols/0', trusted('carol'))).status, 200, 'a login named in the ACL reads');
  t.equal((await get(node, '/streams/carols/0', trusted('erin;auditors'))).status, 200, 'so does a member of a named group');
  t.match(await get(node, '/streams/carols/0', trusted('dave;sales')), { status: 401, code: 'SVCDB_ERR_ACCESS_DENIED' }, 'others are refused');
  t.match(await get(node, '/streams/%24all', trusted('carol')), { status: 401, code: 'SVCDB_ERR_ACCESS_DENIED' }, '$all stays for $admins');
  t.equal((await get(node, '/streams/%24all', trusted('root;$admins'))).status, 200, 'an asserted $admins member reads $all');
  t.equal((await get(node, '/streams/carols/0', { ...trusted('carol'), authorization: basicAuth('carol', 'no such user') })).status, 200,
    'the assertion comes before credentials: the proxy checked them');
  t.match(await get(node, '/streams/carols/0', trusted(';auditors')),
    { status: 401, code: 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID', challenge: /^Basic realm="svcdb"/ }, 'a malformed assertion is a 401 with the challenge');
  t.match(await get(node, '/streams/carols/0', {}), { status: 401, code: 'SVCDB_ERR_AUTH_REQUIRED' }, 'without either, credentials are still required');
});

t.test('with trusted auth off, the header is ignored', async (t) => {
  const node = await startNode(t);
  await append(node, 'quiet', ADMIN_AUTH);
  t.match(await get(node, '/streams/quiet/0', { 'svc-trustedauth': 'root;$admins' }), { status: 401, code: 'SVCDB_ERR_AUTH_REQUIRED' },
    'an assertion alone authenticates no one');
  t.match(await get(node, '/streams/%24all', { 'svc-trustedauth': 'root;$admins', authorization: basicAuth('nobody', 'x') }),
    { status: 401, code: 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID' }, 'and does not stand in for wrong credentials');
});

/** GET with header values sent as the UTF-8 bytes of their text (fetch sends only Latin-1). */
function getWithUtf8Headers(node: TestNode, path: string, headers: Record<string, string>): Promise<number> {
  const latin1 = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Buffer.from(value).toString('latin1')]));
  return new Promise((resolve, reject) => {
    httpGet(node.url + path, { headers: { accept: 'application/json', ...latin1 } }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    }).on('error', reject);
  });
}

// Regression: header bytes were read one character per byte, so a login with non-ASCII letters
// asserted by the proxy never matched the same login in an ACL.
t.test('the asserted login is read as UTF-8', async (t) => {
  const node = await startApp(t, { access: { enableTrustedAuth: true } });
  await append(node, 'zoes', ADMIN_AUTH);
  await append(node, 'zoes', ADMIN_AUTH, { $acl: { $r: ['zoë'] } });
  t.equal(await getWithUtf8Headers(node, '/streams/zoes/0', { 'svc-trustedauth': 'zoë' }), 200, 'zoë reads her stream');
  t.equal(await getWithUtf8Headers(node, '/streams/zoes/0', { 'svc-trustedauth': 'zoe' }), 401, 'zoe is someone else');
});
