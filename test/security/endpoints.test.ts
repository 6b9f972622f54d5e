// Who may call which endpoint on a whole node (the daemon in process, real engine, port 0): the
// default policy, the anonymous-access options, and the default users of a first start.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { Daemon } from '../../src/daemon/daemon.js';
import { daemonOptions } from '../../src/daemon/options.js';
import { Engine } from '../../src/storage/engine.js';
import { ADMIN_AUTH, OPS_AUTH, basicAuth, createUser } from '../helpers/auth.js';

type LogLine = { level: number; msg: string; user?: string };

async function startDaemon(t: Test, dir: string, input: Record<string, unknown> = {}) {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  const options = daemonOptions({ db: join(dir, 'db'), httpPort: 0, ...input }, dir);
  const daemon = await Daemon.start(options, { logger, version: '1.0.0', openStorage: (engineOptions) => Engine.open(engineOptions) });
  t.teardown(() => daemon.stop());
  const base = `http://127.0.0.1:${daemon.address.port}`;
  const call = async (method: string, path: string, auth?: string) => {
    const response = await fetch(base + path, { method, headers: auth === undefined ? {} : { authorization: auth } });
    const text = await response.text();
    return { status: response.status, code: text.startsWith('{') ? (JSON.parse(text) as { code?: string }).code : undefined, headers: response.headers };
  };
  return { daemon, call, lines };
}

const dir = t.testdir();
const node = await startDaemon(t, dir);
// A plain user for the tests.
const CAROL = await createUser(`http://127.0.0.1:${node.daemon.address.port}`, { loginName: 'carol', password: 'pw', groups: ['staff'] });

t.test('anonymous endpoints answer everyone, whatever credentials come along', async (t) => {
  for (const [method, path] of [['GET', '/ping'], ['GET', '/info'], ['GET', '/gossip'], ['OPTIONS', '/streams/x'], ['OPTIONS', '/users']]) {
    t.equal((await node.call(method, path)).status, 200, `${method} ${path}`);
    t.equal((await node.call(method, path, basicAuth('nobody', 'x'))).status, 200, `${method} ${path} with unknown credentials`);
  }
});

t.test('GET /projections sends anyone to the console; the projections API still asks who calls', async (t) => {
  const projecting = await startDaemon(t, t.testdir(), { runProjections: 'All' });
  const redirect = await fetch(`http://127.0.0.1:${projecting.daemon.address.port}/projections`, { redirect: 'manual' });
  t.same([redirect.status, redirect.headers.get('location')], [302, '/web/projections.htm'], 'a browser\'s address bar sends no credentials');
  const list = await projecting.call('GET', '/projections/any');
  t.same([list.status, list.code], [401, 'SVCDB_ERR_AUTH_REQUIRED'], 'listing projections needs a user');
  const create = await projecting.call('POST', '/projections');
  t.equal(create.status === 200 || create.status === 302, false, 'only GET is open');
});

t.test('user, operator and stream endpoints: no, wrong and right credentials', async (t) => {
  const matrix: Array<[string, string, { user: boolean; ops: boolean }]> = [
    ['GET', '/stats', { user: true, ops: true }],
    ['GET', '/stats/proc', { user: true, ops: true }],
    ['GET', '/metrics', { user: true, ops: true }],
    ['GET', '/info/options', { user: false, ops: true }],
    ['POST', '/admin/mergeindexes', { user: false, ops: true }],
    ['GET', '/users/$current', { user: true, ops: true }],
    ['GET', '/streams/%24all', { user: false, ops: false }],
  ];
  for (const [method, path, allowed] of matrix) {
    const what = `${method} ${path}`;
    const anonymous = await node.call(method, path);
    t.same([anonymous.status, anonymous.code], [401, 'SVCDB_ERR_AUTH_REQUIRED'], `${what}: anonymous`);
    t.equal(anonymous.headers.get('www-authenticate'), 'Basic realm="svcdb", charset="UTF-8"', `${what}: a challenge`);
    const wrong = await node.call(method, path, basicAuth('admin', 'wrong'));
    t.same([wrong.status, wrong.code], [401, 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID'], `${what}: wrong password`);
    const unknown = await node.call(method, path, basicAuth('no-such-user', 'x'));
    t.same([unknown.status, unknown.code], [401, 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID'], `${what}: unknown user, same answer`);
    t.equal((await node.call(method, path, CAROL)).status === 200, allowed.user, `${what}: a plain user`);
    t.equal((await node.call(method, path, OPS_AUTH)).status === 200, allowed.ops, `${what}: ops`);
    t.equal((await node.call(method, path, ADMIN_AUTH)).status, 200, `${what}: admin`);
  }
  const shutdown = await node.call('POST', '/admin/shutdown', CAROL);
  t.same([shutdown.status, shutdown.code], [401, 'SVCDB_ERR_ACCESS_DENIED'], 'a plain user cannot stop the node');
  t.equal(node.daemon.state, 'leader', 'and it runs on');
});

// Regression: anyone could post gossip, and the node logged the sender's address at WARN.
t.test('POST /gossip is for operators; reading it stays open', async (t) => {
  const update = JSON.stringify({ members: [{ instanceId: randomUUID(), state: 'Leader', isAlive: true, httpEndPointIp: '127.0.0.2', httpEndPointPort: 1 }], serverIp: '127.0.0.2', serverPort: 1 });
  const post = async (auth?: string) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (auth !== undefined) headers.authorization = auth;
    const response = await fetch(`http://127.0.0.1:${node.daemon.address.port}/gossip`, { method: 'POST', headers, body: update });
    return { status: response.status, code: (await response.json() as { code?: string }).code };
  };
  const warnings = () => node.lines.filter((line) => line.level === 40 && /gossip/.test(line.msg)).length;
  const before = warnings();
  t.same(await post(), { status: 401, code: 'SVCDB_ERR_AUTH_REQUIRED' }, 'anonymous');
  t.same(await post(CAROL), { status: 401, code: 'SVCDB_ERR_ACCESS_DENIED' }, 'a plain user');
  t.equal(warnings(), before, 'a refused update logs nothing');
  t.equal((await post(OPS_AUTH)).status, 200, 'ops');
  t.equal((await node.call('GET', '/gossip')).status, 200, 'GET stays anonymous');
});

t.test('malformed Authorization headers are coded 401s', async (t) => {
  for (const header of ['Bearer abc', 'Basic', 'Basic !!!', `Basic ${Buffer.from('no-colon').toString('base64')}`, `Basic ${Buffer.from(':pw').toString('base64')}`]) {
    const reply = await node.call('GET', '/stats', header);
    t.same([reply.status, reply.code], [401, 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID'], header);
  }
});

t.test('anonymous endpoint access opens /stats and /metrics only', async (t) => {
  const open = await startDaemon(t, t.testdir(), { allowAnonymousEndpointAccess: true });
  t.equal((await open.call('GET', '/stats')).status, 200);
  t.equal((await open.call('GET', '/metrics')).status, 200);
  t.equal((await open.call('GET', '/info/options')).status, 401);
  t.equal((await open.call('GET', '/streams/anything')).status, 401);
});

t.test('default users: created on the first start with the option passwords, warned about while default', async (t) => {
  const fresh = t.testdir();
  const first = await startDaemon(t, fresh, { defaultAdminPassword: 'admin-secret' });
  t.equal((await first.call('GET', '/users/$current', basicAuth('admin', 'admin-secret'))).status, 200, 'admin has the option password');
  t.equal((await first.call('GET', '/users/$current', ADMIN_AUTH)).status, 401, 'not changeit');
  t.equal((await first.call('GET', '/users/$current', OPS_AUTH)).status, 200, 'ops kept the default');
  await first.daemon.parts.security.defaultPasswordsChecked;
  const warned = first.lines.filter((line) => line.level === 40 && /default password/.test(line.msg)).map((line) => line.user);
  t.same(warned, ['ops'], 'a warning for ops only');
  const options = await first.call('GET', '/info/options', basicAuth('admin', 'admin-secret'));
  t.equal(options.status, 200);
  const listed = await (await fetch(`http://127.0.0.1:${first.daemon.address.port}/info/options`, { headers: { authorization: basicAuth('admin', 'admin-secret') } })).json() as Array<{ name: string; value: string }>;
  t.equal(listed.find((option) => option.name === 'DefaultAdminPassword')?.value, '****', 'the password is never shown');
  await first.daemon.stop();

  const second = await startDaemon(t, fresh, { defaultAdminPassword: 'another' });
  t.equal((await second.call('GET', '/users/$current', basicAuth('admin', 'admin-secret'))).status, 200, 'a later start keeps the users as they are');
  t.equal((await second.call('GET', '/users/$current', basicAuth('admin', 'another'))).status, 401);
  const ops = await fetch(`http://127.0.0.1:${second.daemon.address.port}/users/ops/command/change-password`, {
    method: 'POST', headers: { authorization: OPS_AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ currentPassword: 'changeit', newPassword: 'ops-secret' }),
  });
  t.equal(ops.status, 200);
  await second.daemon.stop();
  const third = await startDaemon(t, fresh);
  await third.daemon.parts.security.defaultPasswordsChecked;
  t.same(third.lines.filter((line) => /default password/.test(line.msg)), [], 'no warning once both passwords changed');
});
