// Idle connections cannot exhaust a node's file descriptors: `svcdb serve` (a child process)
// closes connections beyond --connections-max as they arrive, closes connections that send no
// request within --http-headers-timeout-ms, stays up, and serves again once they are gone.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { openConnection, type RawConnection } from '../helpers/raw-connection.js';
import { startServer, type RunningServer } from '../helpers/cli.js';
import { Errors } from '../../src/common/errors.js';
import { loadOptions } from '../../src/common/options/load.js';
import { daemonOptions } from '../../src/daemon/options.js';
import {
  connectionsMaxOf, CONNECTIONS_MAX_FALLBACK, defaultConnectionsMax, openFilesSoftLimit, STORAGE_DESCRIPTORS_RESERVE,
} from '../../src/daemon/services/connection-limits.js';

const CONNECTIONS_MAX = 200;
const WAIT_MS = 60_000;
/** Connections opened at once, so the listen backlog never overflows. */
const OPENING_WAVE = 100;
/** Descriptors the test process keeps for its own files, pipes and requests. */
const TEST_DESCRIPTORS_RESERVE = 500;

/** Many idle connections, but never more than this process may open: its limit is not raised. */
function idleConnectionCount(t: Test): number {
  const limit = openFilesSoftLimit(readFileSync('/proc/self/limits', 'utf8')) ?? 1024;
  const count = Math.min(4000, limit - TEST_DESCRIPTORS_RESERVE);
  t.ok(count >= 1000, `the test process may open ${limit} files, enough for ${count} idle connections (needs 1000)`);
  return count;
}

async function openMany(port: number, count: number): Promise<RawConnection[]> {
  const connections: RawConnection[] = [];
  while (connections.length < count) {
    const wave = Math.min(OPENING_WAVE, count - connections.length);
    connections.push(...await Promise.all(Array.from({ length: wave }, () => openConnection(port))));
  }
  return connections;
}

async function waitUntil(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up after ${WAIT_MS} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function pingSucceeds(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/ping`)).status === 200;
  } catch {
    return false;
  }
}

/** `408 Request Timeout` with the coded JSON body. */
function isTimeoutReply(reply: string): boolean {
  const [head, body] = reply.split('\r\n\r\n');
  if (head.split('\r\n')[0] !== 'HTTP/1.1 408 Request Timeout') return false;
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    return parsed.code === Errors.httpRequestTimeout.code && typeof parsed.message === 'string' && Object.keys(parsed).length === 2;
  } catch {
    return false;
  }
}

/** The node is still running and takes a write and a read. */
async function servesAppendAndRead(t: Test, server: RunningServer): Promise<void> {
  t.equal(server.process.child.exitCode, null, 'the node is still running');
  await waitUntil('the node to answer /ping again', () => pingSucceeds(server.url));
  const append = await adminFetch(`${server.url}/streams/after-idle`, {
    method: 'POST', body: '{"served":true}',
    headers: { 'content-type': 'application/json', 'svc-eventtype': 'Served', 'svc-eventid': randomUUID() },
  });
  t.equal(append.status, 201, 'an append is acknowledged');
  const read = await adminFetch(`${server.url}/streams/after-idle/0`, { headers: { accept: 'application/json' } });
  t.equal(read.status, 200, 'the event reads back');
  t.same(await read.json(), { served: true });
}

t.test('connections beyond --connections-max are closed as they arrive; the node stays up', async (t) => {
  const count = idleConnectionCount(t);
  const server = await startServer(t, {
    dbPath: `${t.testdir()}/db`,
    args: ['--connections-max', String(CONNECTIONS_MAX), '--http-headers-timeout-ms', '600000'],
  });
  const listening = server.process.logLines.find((line) => line.msg === 'listening');
  t.equal(listening?.connectionsMax, CONNECTIONS_MAX, 'the listening line shows the cap');

  const connections = await openMany(server.port, count);
  await waitUntil(`all but ${CONNECTIONS_MAX} of ${count} connections to be closed by the node`,
    () => connections.filter((connection) => connection.isClosed()).length >= count - CONNECTIONS_MAX);
  const open = connections.filter((connection) => !connection.isClosed());
  t.equal(open.length, CONNECTIONS_MAX, 'exactly the cap stays open');
  t.ok(connections.filter((connection) => connection.isClosed()).every((connection) => connection.received() === ''),
    'the dropped connections were closed without a reply');

  const refused = await openConnection(server.port);
  refused.socket.write('GET /ping HTTP/1.1\r\nHost: node\r\n\r\n');
  await refused.closed;
  t.equal(refused.received(), '', 'a new client is closed without a reply while the cap is reached');
  t.equal(server.process.child.exitCode, null, 'the node is still running at the cap');

  for (const connection of open) connection.socket.destroy();
  await servesAppendAndRead(t, server);
});

t.test('connections that send no request are closed after --http-headers-timeout-ms', async (t) => {
  const count = idleConnectionCount(t);
  const server = await startServer(t, {
    dbPath: `${t.testdir()}/db`,
    args: ['--connections-max', String(CONNECTIONS_MAX), '--http-headers-timeout-ms', '500'],
  });
  const connections = await openMany(server.port, count);
  await waitUntil(`the node to close all ${count} idle connections`, () => connections.every((connection) => connection.isClosed()));
  const timedOut = connections.filter((connection) => connection.received() !== '');
  t.ok(timedOut.length >= CONNECTIONS_MAX, `at least the ${CONNECTIONS_MAX} connections within the cap were answered (${timedOut.length} were)`);
  const wrong = timedOut.find((connection) => !isTimeoutReply(connection.received()));
  t.equal(wrong?.received(), undefined, `all ${timedOut.length} answered connections got 408 with {code, message}`);
  await servesAppendAndRead(t, server);
});

t.test('the default cap keeps descriptors for storage files below the open-file limit', async (t) => {
  const limits = 'Limit                     Soft Limit           Hard Limit           Units\n'
    + 'Max open files            20000                524288               files\n';
  t.equal(openFilesSoftLimit(limits), 20000, 'the soft limit is read from /proc/self/limits');
  t.equal(openFilesSoftLimit('Max open files            unlimited            unlimited            files\n'), undefined);
  t.equal(defaultConnectionsMax(20000), 20000 - STORAGE_DESCRIPTORS_RESERVE);
  t.equal(defaultConnectionsMax(1024), 512, 'a small limit is shared half and half');
  t.equal(defaultConnectionsMax(undefined), CONNECTIONS_MAX_FALLBACK, 'an unknown limit gives the fixed default');
  t.same(connectionsMaxOf(0, 20000), { value: 20000 - STORAGE_DESCRIPTORS_RESERVE }, '0 means the default');
  t.same(connectionsMaxOf(500, 20000), { value: 500 }, 'a cap within the limit is taken as it is');
  const tooMany = connectionsMaxOf(19_990, 20000);
  t.equal(tooMany.value, 19_990, 'a cap above the reserve is kept');
  t.match(tooMany.warning, /ulimit -n/, 'but warned about');
});

t.test('--connections-max and --http-headers-timeout-ms are validated', async (t) => {
  const cwd = t.testdir();
  t.equal(daemonOptions({}, cwd).values.connectionsMax, 0, 'the default is derived (0)');
  t.equal(daemonOptions({ connectionsMax: '300', httpHeadersTimeoutMs: '2000' }, cwd).values.httpHeadersTimeoutMs, 2000);
  t.throws(() => daemonOptions({ connectionsMax: '-1' }, cwd), { code: Errors.optionInvalid.code });
  t.throws(() => daemonOptions({ httpHeadersTimeoutMs: '0' }, cwd), { code: Errors.optionInvalid.code });
  const fromEnvironment = loadOptions({ flags: {}, env: { SVC_CONNECTIONS_MAX: '42' }, cwd });
  t.equal(fromEnvironment.values.connectionsMax, 42, 'SVC_CONNECTIONS_MAX sets it');
});
