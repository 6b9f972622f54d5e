// Request bodies have a deadline, and slow clients cannot lock others out (through a real node,
// `Daemon.start` on port 0): a request whose body is not complete within
// --http-request-timeout-ms, or that arrives slower than the body-rate floor, is answered 408
// SVCDB_ERR_HTTP_BODY_TIMEOUT and closed; a reply sent before the body was read closes the
// connection; and with --connections-max held by one address's slow-body connections, new
// clients from another address are still served.
import http from 'node:http';
import { join } from 'node:path';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { Errors } from '../../src/common/errors.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { daemonOptions } from '../../src/daemon/options.js';
import { Engine } from '../../src/storage/engine.js';
import { ADMIN_AUTH } from '../helpers/auth.js';
import { openConnection, type RawConnection } from '../helpers/raw-connection.js';

async function startDaemon(t: Test, values: Record<string, number>): Promise<number> {
  const dir = t.testdir();
  const options = daemonOptions({ db: join(dir, 'db'), httpPort: 0, logLevel: 'warn', ...values }, dir);
  const daemon = await Daemon.start(options, { logger: pino({ level: 'silent' }), version: '9.9.9', openStorage: (engineOptions) => Engine.open(engineOptions) });
  t.teardown(() => daemon.stop());
  return daemon.address.port;
}

/** Sends a request's headers announcing `bodyBytes` bytes and `firstBytes` of them, then nothing unless told. */
async function slowPost(port: number, { localAddress = '127.0.0.1', method = 'POST', path = '/streams/slow', bodyBytes = 1_000_000, firstBytes = '' } = {}): Promise<RawConnection> {
  const client = await openConnection(port, localAddress);
  client.socket.write(`${method} ${path} HTTP/1.1\r\nHost: node\r\nAuthorization: ${ADMIN_AUTH}\r\nContent-Type: application/json\r\n`
    + `Svc-EventType: Slow\r\nSvc-EventId: 5b0c2a0e-5d0b-4f36-9a36-2f4c1d8e0f01\r\nContent-Length: ${bodyBytes}\r\n\r\n${firstBytes}`);
  return client;
}

function bodyTimeoutReply(reply: string): { status: string; code?: unknown; message?: unknown } {
  const [head, body = ''] = reply.split('\r\n\r\n');
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    // The status line says what went wrong.
  }
  return { status: head.split('\r\n')[0], code: parsed.code, message: parsed.message };
}

/** GET /ping on a new connection from `localAddress`. */
function ping(port: number, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/ping', localAddress, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode!));
    });
    request.on('error', reject);
  });
}

t.test('a body not complete within --http-request-timeout-ms is answered 408 and closed', async (t) => {
  const port = await startDaemon(t, { httpRequestTimeoutMs: 1000, httpHeadersTimeoutMs: 500 });
  // Fast enough for the rate floor while it lasts; the whole request still is late.
  const client = await slowPost(port, { firstBytes: '{"a":"' + 'x'.repeat(2000) });
  await client.closed;
  const reply = bodyTimeoutReply(client.received());
  t.equal(reply.status, 'HTTP/1.1 408 Request Timeout');
  t.equal(reply.code, Errors.httpBodyTimeout.code);
  t.match(reply.message, /1000 ms \(--http-request-timeout-ms\)/);
});

t.test('a body that drips slower than the rate floor is answered 408 and closed long before the request timeout', async (t) => {
  const port = await startDaemon(t, { httpRequestTimeoutMs: 3_600_000 });
  const client = await slowPost(port, { firstBytes: '{' });
  const drip = setInterval(() => client.socket.write('"'), 1000);
  t.teardown(() => clearInterval(drip));
  await client.closed;
  const reply = bodyTimeoutReply(client.received());
  t.equal(reply.status, 'HTTP/1.1 408 Request Timeout');
  t.equal(reply.code, Errors.httpBodyTimeout.code);
  t.match(reply.message, /slower than 240 bytes a second/);
});

t.test('a reply sent before the body was read closes the connection instead of draining the body', async (t) => {
  const port = await startDaemon(t, { httpRequestTimeoutMs: 3_600_000 });
  // GET /ping reads no body: it answers at once, with the body still to come.
  const client = await slowPost(port, { method: 'GET', path: '/ping', firstBytes: 'x' });
  await client.closed;
  t.match(client.received(), /^HTTP\/1\.1 200 /, 'the reply came');
  t.match(client.received(), /\r\nconnection: close\r\n/i, 'and said the connection closes');
});

t.test('with the connection cap held by one address\'s slow bodies, other addresses are served', async (t) => {
  const connectionsMax = 20;
  const port = await startDaemon(t, { connectionsMax, httpRequestTimeoutMs: 3_600_000 });
  const attacker = '127.0.0.2';
  const slow: RawConnection[] = [];
  let stopped = false;
  // The attacker keeps the cap full: each of its connections that is closed is opened again.
  const keepOpen = async (): Promise<void> => {
    while (!stopped) {
      const client = await slowPost(port, { localAddress: attacker, firstBytes: '{' });
      slow.push(client);
      await client.closed;
    }
  };
  const attackers = Array.from({ length: connectionsMax }, () => keepOpen());
  const drip = setInterval(() => {
    for (const client of slow) if (!client.isClosed()) client.socket.write('"');
  }, 1000);
  t.teardown(() => clearInterval(drip));
  while (slow.filter((client) => !client.isClosed()).length < connectionsMax) await new Promise((resolve) => setImmediate(resolve));

  const statuses: number[] = [];
  for (let i = 0; i < 30; i++) statuses.push(await ping(port, '127.0.0.1'));
  t.same(statuses, Array(30).fill(200), 'every one of 30 new clients of another address is served');
  t.ok(slow.some((client) => client.isClosed()), 'the attacker\'s oldest connections were closed to let them in');

  const ownAddress = await slowPost(port, { localAddress: attacker, firstBytes: '{' });
  t.ok(slow.filter((client) => !client.isClosed()).length <= connectionsMax, 'the cap holds');
  stopped = true;
  ownAddress.socket.destroy();
  for (const client of slow) client.socket.destroy();
  await Promise.all(attackers);
});
