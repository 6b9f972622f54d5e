// A flood of wrong passwords cannot stall a node (the daemon in process, real engine, port 0):
// new credentials are verified a few at a time behind a bounded queue and the rest refused with a
// coded 503 and Retry-After, while a user whose credentials are cached goes on appending; and an
// address that keeps failing is refused with a coded 429 before anything is hashed, while other
// addresses are not. Clients take their own loopback addresses (127.0.x.y) to be many sources.
import { request } from 'node:http';
import { join } from 'node:path';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { Daemon } from '../../src/daemon/daemon.js';
import { daemonOptions } from '../../src/daemon/options.js';
import type { AuthenticationFields } from '../../src/daemon/services/stats.js';
import { Engine } from '../../src/storage/engine.js';
import { ADMIN_AUTH, basicAuth, createUser } from '../helpers/auth.js';

interface Reply {
  status: number;
  code: string | undefined;
  retryAfter: string | undefined;
  challenge: string | undefined;
}

async function startDaemon(t: Test, input: Record<string, unknown>) {
  const dir = t.testdir();
  const options = daemonOptions({ db: join(dir, 'db'), httpPort: 0, ...input }, dir);
  const daemon = await Daemon.start(options, { logger: pino({ level: 'silent' }), version: '1.0.0', openStorage: (engineOptions) => Engine.open(engineOptions) });
  t.teardown(() => daemon.stop());
  return { daemon, url: `http://127.0.0.1:${daemon.address.port}`, port: daemon.address.port };
}

/** One request on a connection of its own, from `localAddress`. */
function call(port: number, localAddress: string, auth: string, path = '/users/$current'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path, localAddress, agent: false, headers: { authorization: auth } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: response.statusCode!,
          code: text.startsWith('{') ? (JSON.parse(text) as { code?: string }).code : undefined,
          retryAfter: response.headers['retry-after'],
          challenge: response.headers['www-authenticate'],
        });
      });
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

async function authenticationStats(url: string): Promise<AuthenticationFields> {
  const response = await fetch(`${url}/stats/svc/authentication`, { headers: { authorization: ADMIN_AUTH } });
  if (response.status !== 200) throw new Error(`GET /stats/svc/authentication: ${response.status} ${await response.text()}`);
  return await response.json() as AuthenticationFields;
}

function appendEvent(url: string, auth: string, stream: string, index: number): Promise<Response> {
  return fetch(`${url}/streams/${stream}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json', 'svc-eventtype': 'Flooded', 'svc-eventid': crypto.randomUUID() },
    body: JSON.stringify({ index }),
  });
}

const FLOOD_SOURCES = 120;
const FLOOD_DEADLINE_MS = 60_000;

t.test('a flood of wrong passwords from 120 addresses: bounded queue, coded refusals, cached appends all succeed', async (t) => {
  const node = await startDaemon(t, { passwordVerificationsMax: 2, passwordVerificationQueueMax: 8 });
  const writer = await createUser(node.url, { loginName: 'writer', password: 'writer-password' });
  t.equal((await appendEvent(node.url, writer, 'flooded', -1)).status, 201, 'the writer\'s credentials are verified, and cached');
  const before = await authenticationStats(node.url);

  const replies: Reply[] = [];
  let flooding = true;
  const appends: number[] = [];
  const appending = (async () => {
    while (flooding || appends.length < 20) appends.push((await appendEvent(node.url, writer, 'flooded', appends.length)).status);
  })();
  const deadline = Date.now() + FLOOD_DEADLINE_MS;
  try {
    // Waves of one wrong password per address, all at once, until one wave overflowed the queue.
    for (let wave = 0; !replies.some((reply) => reply.status === 503); wave++) {
      if (Date.now() > deadline) throw new Error(`no flood request was refused with 503 within ${FLOOD_DEADLINE_MS} ms (${replies.length} replies)`);
      const sources = Array.from({ length: FLOOD_SOURCES }, (_, i) => `127.0.${1 + (i >> 8)}.${1 + (i & 255)}`);
      const login = (i: number) => (i % 2 === 0 ? 'admin' : `nobody-${i}`);
      replies.push(...await Promise.all(sources.map((source, i) => call(node.port, source, basicAuth(login(i), `guess-${wave}-${i}`)))));
    }
  } finally {
    flooding = false;
    await appending;
  }

  const byStatus = (status: number) => replies.filter((reply) => reply.status === status);
  const refused = byStatus(503);
  const denied = byStatus(401);
  t.equal(denied.length + refused.length + byStatus(429).length, replies.length, 'every flood reply is 401, 503 or 429: no 500, no hang');
  t.ok(denied.every((reply) => reply.code === 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID' && reply.challenge?.startsWith('Basic ')), 'the 401s are coded, with a challenge');
  t.ok(refused.every((reply) => reply.code === 'SVCDB_ERR_AUTH_VERIFICATIONS_BUSY' && reply.retryAfter === '1'), 'the 503s are coded, with Retry-After: 1');
  t.ok(byStatus(429).every((reply) => reply.code === 'SVCDB_ERR_AUTH_FAILURES_THROTTLED' && Number(reply.retryAfter) >= 1), 'any 429 is coded, with Retry-After');
  t.ok(denied.length >= 10, `wrong passwords that got their turn are denied (${denied.length})`);
  t.ok(appends.length >= 20 && appends.every((status) => status === 201), `all ${appends.length} appends by the cached user succeeded`);

  const after = await authenticationStats(node.url);
  t.match(after, { verificationsRunningMax: 2, verificationsWaitingMax: 8, verificationsRunning: 0, verificationsWaiting: 0 });
  t.equal(after.verificationsWaitingPeak, 8, 'the queue filled up to its bound and never past it');
  t.equal(after.verificationsRefused - before.verificationsRefused, refused.length, 'every 503 is a refusal the node counted');
  t.equal(after.failedLogins - before.failedLogins, denied.length, 'every 401 is a failed login the node counted');
});

t.test('an address that keeps failing is refused before hashing; a verified login resets it; other addresses go on', async (t) => {
  const node = await startDaemon(t, { failedLoginsMax: 3 });
  const carol = await createUser(node.url, { loginName: 'carol', password: 'carol-password' });
  const dave = await createUser(node.url, { loginName: 'dave', password: 'dave-password' });
  const wrong = (i: number) => basicAuth('carol', `wrong-${i}`);
  const statuses = async (source: string, auths: string[]) => {
    const list: Array<number | string> = [];
    for (const auth of auths) {
      const reply = await call(node.port, source, auth);
      list.push(reply.status === 200 ? 200 : `${reply.status} ${reply.code}`);
    }
    return list;
  };
  const denied = '401 SVCDB_ERR_AUTH_CREDENTIALS_INVALID';
  const throttled = '429 SVCDB_ERR_AUTH_FAILURES_THROTTLED';

  t.same(await statuses('127.0.2.1', [wrong(1), wrong(2), wrong(3), wrong(4), carol]), [denied, denied, denied, throttled, throttled],
    'three failures, then refused: a wrong password and the right one alike');
  const refusal = await call(node.port, '127.0.2.1', wrong(5));
  t.match(refusal, { status: 429, retryAfter: /^[1-9]\d*$/ }, 'with Retry-After in whole seconds');
  t.same(await statuses('127.0.2.2', [carol, wrong(6), carol]), [200, denied, 200], 'another address is not affected');
  t.same(await statuses('127.0.2.3', [wrong(7), wrong(8), dave, wrong(9), wrong(10), wrong(11), wrong(12)]),
    [denied, denied, 200, denied, denied, denied, throttled],
    'a verified login resets the count: two failures after it are not the third');
  const stats = await authenticationStats(node.url);
  t.match(stats, { throttledRequests: 4, failedLogins: 9 }, 'the refused requests were counted, and none was verified');
});
