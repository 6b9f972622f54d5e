// Stream ACLs over HTTP: each right against each kind of role, the defaults of $settings and the
// built-in ones, $all and system streams, long polls, and a changed ACL holding from the next request.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { ADMIN_AUTH, OPS_AUTH, createUser } from '../helpers/auth.js';
import { newEvents } from '../helpers/engine.js';
import { startNode, type TestNode } from '../helpers/node.js';

const node = await startNode(t);

async function request(target: TestNode, method: string, path: string, auth: string | undefined, headers: Record<string, string> = {}, body?: string) {
  const all: Record<string, string> = { accept: 'application/json', ...headers };
  if (auth !== undefined) all.authorization = auth;
  const response = await fetch(target.url + path, { method, headers: all, body, redirect: 'manual' });
  const text = await response.text();
  return { status: response.status, code: text.startsWith('{') ? (JSON.parse(text) as { code?: string }).code : undefined, headers: response.headers };
}

const JSON_EVENT = (type = 'Tested') => ({ 'content-type': 'application/json', 'svc-eventtype': type, 'svc-eventid': randomUUID() });

/** One probe per right: a 2xx means allowed, a 401 denied; anything else fails the test. */
const rights = {
  $r: (auth: string | undefined, stream: string, target = node) => request(target, 'GET', `/streams/${stream}/0`, auth),
  $w: (auth: string | undefined, stream: string, target = node) => request(target, 'POST', `/streams/${stream}`, auth, JSON_EVENT(), '{"a":1}'),
  $d: (auth: string | undefined, stream: string, target = node) => request(target, 'DELETE', `/streams/${stream}`, auth, { 'svc-expectedversion': '-2' }),
  $mr: (auth: string | undefined, stream: string, target = node) => request(target, 'GET', `/streams/${stream}/metadata`, auth),
  $mw: (auth: string | undefined, stream: string, target = node) =>
    request(target, 'POST', `/streams/${stream}/metadata`, auth, { 'content-type': 'application/json', 'svc-eventid': randomUUID() }, '{"custom":1}'),
} as const;
type Right = keyof typeof rights;
const RIGHTS = Object.keys(rights) as Right[];

async function allowed(right: Right, auth: string | undefined, stream: string, target = node): Promise<boolean> {
  const reply = await rights[right](auth, stream, target);
  if (reply.status === 401) return false;
  if (reply.status >= 200 && reply.status < 300) return true;
  throw new Error(`${right} on ${stream}: unexpected ${reply.status} ${reply.code}`);
}

async function setAcl(stream: string, acl: Record<string, unknown>): Promise<void> {
  await node.engine.append(stream, -2, newEvents(1));
  await node.engine.setStreamMetadata(stream, -2, { $acl: acl });
}

const alice = await createUser(node.url, { loginName: 'alice', password: 'pw', groups: ['writers'] });
const bob = await createUser(node.url, { loginName: 'bob', password: 'pw', groups: ['readers'] });

t.test('each right follows its own ACL entry: a user name, a group, $all, or nobody but admins', async (t) => {
  for (const right of RIGHTS) {
    const cases: Array<[string | string[], Record<string, boolean>]> = [
      ['alice', { alice: true, bob: false, anonymous: false, admin: true, ops: false }],
      [['readers'], { alice: false, bob: true, anonymous: false, admin: true, ops: false }],
      [['writers', 'bob'], { alice: true, bob: true, anonymous: false, admin: true, ops: false }],
      ['$all', { alice: true, bob: true, anonymous: false, admin: true, ops: true }],
      [[], { alice: false, bob: false, anonymous: false, admin: true, ops: false }],
    ];
    for (const [roles, expected] of cases) {
      const who = { alice, bob, anonymous: undefined, admin: ADMIN_AUTH, ops: OPS_AUTH };
      for (const [name, auth] of Object.entries(who)) {
        // A fresh stream per probe: a delete or a write must not change what the next probe sees.
        const stream = `acl-${right.slice(1)}-${randomUUID().slice(0, 8)}`;
        await setAcl(stream, { [right]: roles });
        t.equal(await allowed(right, auth, stream), expected[name], `${right}=${JSON.stringify(roles)}: ${name}`);
      }
    }
  }
});

t.test('a denial is a 401 with a challenge and a code that tells anonymous from forbidden', async (t) => {
  const stream = `deny-${randomUUID().slice(0, 8)}`;
  await setAcl(stream, { $r: 'alice' });
  const forbidden = await rights.$r(bob, stream);
  t.equal(forbidden.status, 401);
  t.equal(forbidden.code, 'SVCDB_ERR_ACCESS_DENIED');
  t.ok(forbidden.headers.get('www-authenticate'));
  const anonymous = await rights.$r(undefined, stream);
  t.equal(anonymous.code, 'SVCDB_ERR_AUTH_REQUIRED');
  t.ok(anonymous.headers.get('www-authenticate'));
  const before = node.engine.readStreamForward(stream, 0, 10).events.length;
  t.equal((await rights.$w(undefined, stream)).status, 401);
  t.equal(node.engine.readStreamForward(stream, 0, 10).events.length, before, 'a refused write wrote nothing');
});

t.test('a changed ACL holds from the very next request', async (t) => {
  const stream = `change-${randomUUID().slice(0, 8)}`;
  await setAcl(stream, { $r: 'alice' });
  t.equal(await allowed('$r', bob, stream), false);
  t.equal(await allowed('$r', alice, stream), true);
  const write = await request(node, 'POST', `/streams/${stream}/metadata`, ADMIN_AUTH,
    { 'content-type': 'application/json', 'svc-eventid': randomUUID() }, JSON.stringify({ $acl: { $r: 'bob' } }));
  t.equal(write.status, 201);
  t.equal(await allowed('$r', bob, stream), true, 'bob now');
  t.equal(await allowed('$r', alice, stream), false, 'alice no more');
});

t.test('feeds, single events, metadata feeds and long polls are guarded alike', async (t) => {
  const stream = `feeds-${randomUUID().slice(0, 8)}`;
  await setAcl(stream, { $r: 'alice', $mr: 'alice' });
  for (const path of [`/streams/${stream}`, `/streams/${stream}/0/forward/5`, `/streams/${stream}/head/backward/5`, `/streams/${stream}/head`, `/streams/${stream}/metadata`, `/streams/%24%24${stream}`]) {
    t.equal((await request(node, 'GET', path, bob)).status, 401, `${path}: bob`);
    t.equal((await request(node, 'GET', path, alice)).status, 200, `${path}: alice`);
  }
  const poll = await request(node, 'GET', `/streams/${stream}/1/forward/5`, bob, { 'svc-longpoll': '30' });
  t.equal(poll.status, 401, 'a long poll is refused before it waits');
  t.equal(node.streams.longPolls.waiting, 0, 'and holds no waiter');
});

t.test('$all and $-streams are for $admins by default', async (t) => {
  for (const path of ['/streams/%24all', '/streams/%24users', '/streams/%24settings', '/streams/%24user-alice']) {
    t.equal((await request(node, 'GET', path, alice)).status, 401, `${path}: a user`);
    t.equal((await request(node, 'GET', path, OPS_AUTH)).status, 401, `${path}: ops`);
    t.not((await request(node, 'GET', path, ADMIN_AUTH)).status, 401, `${path}: admin`);
  }
  t.equal((await rights.$w(alice, '%24system-x')).status, 401, 'writing a $-stream');
  t.equal((await rights.$w(alice, `%24user-bob`)).status, 401, 'writing another user\'s record');
});

t.test('defaults come from $settings, per right, and a change to $settings holds at once', async (t) => {
  const settings = async (body: unknown) => {
    const reply = await request(node, 'POST', '/streams/%24settings', ADMIN_AUTH, JSON_EVENT('$settings'), JSON.stringify(body));
    t.equal(reply.status, 201, 'settings written');
  };
  const plain = `plain-${randomUUID().slice(0, 8)}`;
  await node.engine.append(plain, -2, newEvents(1));
  t.equal(await allowed('$r', bob, plain), true, 'built in: every user reads user streams');
  await settings({ $userStreamAcl: { $r: 'readers', $w: 'writers' }, $systemStreamAcl: { $r: ['$admins', 'alice'] } });
  t.equal(await allowed('$r', bob, plain), true, 'bob is a reader');
  t.equal(await allowed('$r', alice, plain), false, 'alice is not');
  t.equal(await allowed('$w', alice, plain), true, 'alice writes');
  t.equal(await allowed('$w', bob, plain), false, 'bob does not');
  t.equal(await allowed('$mr', bob, plain), true, 'a right the settings leave out keeps the built-in default');
  t.equal((await request(node, 'GET', '/streams/%24users', alice)).status, 200, 'system default: alice reads $-streams');
  t.equal((await request(node, 'GET', '/streams/%24users', bob)).status, 401);
  const own = `own-${randomUUID().slice(0, 8)}`;
  await setAcl(own, { $r: 'alice' });
  t.equal(await allowed('$r', alice, own), true, 'a stream\'s own ACL wins over the defaults');
  await settings({});
  t.equal(await allowed('$r', alice, plain), true, 'back to the built-in defaults');
});

// Regression: a stream without metadata of its own answered its metadata read with "may not read
// stream" when the default ACL gave the caller $mr but not $r.
t.test('reading the metadata of a stream without any needs $mr only, not $r', async (t) => {
  const settings = (body: unknown) => request(node, 'POST', '/streams/%24settings', ADMIN_AUTH, JSON_EVENT('$settings'), JSON.stringify(body));
  t.teardown(() => settings({}));
  t.equal((await settings({ $userStreamAcl: { $r: 'readers', $mr: 'writers' } })).status, 201, 'settings written');
  const bare = `bare-${randomUUID().slice(0, 8)}`;
  await node.engine.append(bare, -2, newEvents(1));
  t.equal(await allowed('$r', alice, bare), false, 'alice may not read the stream');
  const metadata = await fetch(`${node.url}/streams/${bare}/metadata`, { headers: { accept: 'application/json', authorization: alice } });
  t.equal(metadata.status, 200, 'but reads its metadata');
  t.same(await metadata.json(), {}, 'which is empty');
  t.equal((await rights.$mr(alice, `missing-${randomUUID().slice(0, 8)}`)).status, 404, 'a stream that does not exist has none');
  t.equal((await rights.$mr(bob, bare)).code, 'SVCDB_ERR_ACCESS_DENIED', 'without $mr, $r is not enough');
});

t.test('anonymous stream access: off by default, and then only where $all is granted', async (t) => {
  const open = await startNode(t, { access: { allowAnonymousStreamAccess: true } });
  await open.engine.append('public', -2, newEvents(1));
  await open.engine.append('private', -2, newEvents(1));
  await open.engine.setStreamMetadata('private', -2, { $acl: { $r: 'alice' } });
  t.equal(await allowed('$r', undefined, 'public', open), true, 'read without credentials');
  t.equal(await allowed('$w', undefined, 'public', open), true, 'write without credentials');
  t.equal(await allowed('$r', undefined, 'private', open), false);
  t.equal((await request(open, 'GET', '/streams/%24all', undefined)).status, 401, '$all stays for admins');
  t.equal((await request(open, 'GET', '/users', undefined)).status, 401, 'other endpoints still need credentials');
  await node.engine.append('public', -2, newEvents(1));
  const refused = await rights.$r(undefined, 'public');
  t.same([refused.status, refused.code], [401, 'SVCDB_ERR_AUTH_REQUIRED'], 'a node with the default options refuses the same read');
});
