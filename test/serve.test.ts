// `svcdb serve`: the HTTP app and its error replies (in process, on a real port), the daemon's
// shutdown paths, and the command as a child process: start, lock, signals, exit codes.
import { existsSync, readFileSync } from 'node:fs';
import { adminFetch } from './helpers/auth.js';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { Errors } from '../src/common/errors.js';
import { Daemon, type NodeStorage } from '../src/daemon/daemon.js';
import { buildApp } from '../src/daemon/http/app.js';
import { daemonOptions } from '../src/daemon/options.js';
import { NodeInfo, type NodeState } from '../src/daemon/services/node-info.js';
import { openEngine, tempDirectory, withFaults } from './helpers/engine.js';
import { nodeServices } from './helpers/node.js';
import { CliProcess, repositoryRoot, runCli, startServer, type CliExit } from './helpers/cli.js';
import { withDeadline } from './helpers/wait.js';

const packageVersion: string = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')).version;
const silent = pino({ level: 'silent' });
// The streams (Atom) and users APIs are served on every node; projections are not.
const features = { projections: false, userManagement: true, atomPub: true };
const authentication = { type: 'internal', properties: null };

async function getJson(url: string, init?: RequestInit) {
  const response = await adminFetch(url, init);
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

function noStackTrace(t: Test, exit: CliExit) {
  t.notMatch(exit.stderr, /^\s+at /m, 'stderr has no stack trace');
}

t.test('the HTTP app', async (t) => {
  let state: NodeState = 'leader';
  const nodeInfo = new NodeInfo('1.2.3', features, authentication, () => state);
  const app = buildApp({ logger: silent, nodeInfo, nodeState: () => state, ...(await nodeServices(t)) });
  app.get('/test/declared-error', async () => {
    throw Errors.streamNotFound.create('orders-1');
  });
  app.get('/test/bug', async () => {
    throw new Error('secret detail from /var/lib/svcdb');
  });
  app.post('/test/echo', async (request) => request.body);
  await app.listen({ host: '127.0.0.1', port: 0 });
  t.teardown(() => app.close());
  const { port } = app.server.address() as { port: number };
  const base = `http://127.0.0.1:${port}`;

  t.test('GET /ping answers 200 with the ping text', async (t) => {
    const reply = await getJson(`${base}/ping`);
    t.equal(reply.status, 200);
    t.match(reply.headers.get('content-type'), /^application\/json/);
    t.same(reply.body, { text: 'Ping request successfully handled' });
  });

  t.test('GET /info answers the info document with the live state', async (t) => {
    const reply = await getJson(`${base}/info`);
    t.equal(reply.status, 200);
    t.same(reply.body, { svcVersion: '1.2.3', state: 'leader', features, authentication });
  });

  t.test('an unknown route is 404 with a coded JSON body', async (t) => {
    const reply = await getJson(`${base}/no/such/thing?x=1`);
    t.equal(reply.status, 404);
    t.same(reply.body, { code: 'SVCDB_ERR_HTTP_NOT_FOUND', message: 'no resource at GET /no/such/thing?x=1' });
  });

  t.test('a declared error keeps its status, code and message', async (t) => {
    const reply = await getJson(`${base}/test/declared-error`);
    t.equal(reply.status, 404);
    t.same(reply.body, { code: 'SVCDB_ERR_STREAM_NOT_FOUND', message: 'stream orders-1 does not exist' });
  });

  t.test('any other error is 500 SVCDB_ERR_INTERNAL without internals', async (t) => {
    const reply = await getJson(`${base}/test/bug`);
    t.equal(reply.status, 500);
    t.equal(reply.body.code, 'SVCDB_ERR_INTERNAL');
    t.notMatch(String(reply.body.message), /secret|\/var\/lib/, 'the message does not leak the error');
    t.same(Object.keys(reply.body).sort(), ['code', 'message'], 'no stack or other fields');
  });

  t.test("fastify's own request errors get our codes and their status", async (t) => {
    const badJson = await getJson(`${base}/test/echo`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json',
    });
    t.equal(badJson.status, 400);
    t.equal(badJson.body.code, 'SVCDB_ERR_HTTP_REQUEST_INVALID');

    const mediaType = await getJson(`${base}/test/echo`, {
      method: 'POST', headers: { 'content-type': 'application/x-unknown' }, body: 'x',
    });
    t.equal(mediaType.status, 415);
    t.same(mediaType.body, { code: 'SVCDB_ERR_HTTP_MEDIA_TYPE', message: 'Invalid or missing Content-Type: application/x-unknown' });

    const tooLarge = await getJson(`${base}/test/echo`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify('x'.repeat(2 * 1024 * 1024)),
    });
    t.equal(tooLarge.status, 413);
    t.equal(tooLarge.body.code, 'SVCDB_ERR_HTTP_BODY_TOO_LARGE');
  });

  t.test('while the node shuts down, new requests get 503 and the connection closes', async (t) => {
    state = 'shuttingdown';
    t.teardown(() => {
      state = 'leader';
    });
    const reply = await getJson(`${base}/ping`);
    t.equal(reply.status, 503);
    t.equal(reply.body.code, 'SVCDB_ERR_NODE_SHUTTING_DOWN');
    t.equal(reply.headers.get('connection'), 'close');
  });
});

t.test('an in-flight request finishes when the app closes', async (t) => {
  const nodeInfo = new NodeInfo('1.2.3', features, authentication, () => 'leader');
  const app = buildApp({ logger: silent, nodeInfo, nodeState: () => 'leader', ...(await nodeServices(t)) });
  let releaseRequest!: () => void;
  const requestArrived = new Promise<void>((arrived) => {
    app.get('/test/slow', async () => {
      arrived();
      await new Promise<void>((release) => {
        releaseRequest = release;
      });
      return { done: true };
    });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };

  const inFlight = getJson(`http://127.0.0.1:${port}/test/slow`);
  await withDeadline(requestArrived, 'the slow request to reach its handler');
  let closed = false;
  const closing = app.close().then(() => {
    closed = true;
  });
  t.notOk(closed, 'close waits for the request');
  releaseRequest();
  const reply = await withDeadline(inFlight, 'the answer to the released request');
  t.equal(reply.status, 200);
  t.same(reply.body, { done: true });
  await withDeadline(closing, 'the app to close once the request finished');
  t.ok(closed, 'close completes after the request finished');
});

t.test('the daemon stops with the fatal error when the storage fails', async (t) => {
  // A storage whose fatal error the test triggers, as a failed fsync would.
  let fatal!: (error: Error) => void;
  let storageClosed = false;
  const dir = tempDirectory(t);
  const storage: NodeStorage = withFaults<NodeStorage>(await openEngine(dir), {
    close: async () => {
      storageClosed = true;
    },
    onFatal: (listener) => {
      fatal = listener;
    },
  });
  const options = daemonOptions({ db: join(dir, 'db'), httpPort: 0 }, dir);
  const daemon = await Daemon.start(options, { logger: silent, version: '1.2.3', openStorage: async () => storage });
  t.teardown(() => daemon.stop());
  t.equal(daemon.state, 'leader');
  const url = `http://127.0.0.1:${daemon.address.port}/ping`;
  t.equal((await adminFetch(url)).status, 200, 'it serves before the failure');
  const failure = Errors.storageIo.create('chunk-000000.000000', 'fsync', 'EIO');
  fatal(failure);
  const result = await withDeadline(daemon.stopped, 'the daemon to stop after the storage\'s fatal error');
  t.equal(result.cause.kind, 'fatal');
  t.equal(result.error, failure, 'the stop reports the fatal error');
  t.equal(daemon.state, 'shutdown');
  t.ok(storageClosed, 'the storage was closed');
  await t.rejects(adminFetch(url), 'the server no longer listens');
});

t.test('the daemon reports a storage that fails to close', async (t) => {
  const closeFailure = Errors.storageIo.create('writer.chk', 'fsync', 'EIO');
  const dir = tempDirectory(t);
  const storage: NodeStorage = withFaults<NodeStorage>(await openEngine(dir), {
    close: async () => {
      throw closeFailure;
    },
    onFatal: () => undefined,
  });
  const options = daemonOptions({ db: join(dir, 'db'), httpPort: 0 }, dir);
  const daemon = await Daemon.start(options, { logger: silent, version: '1.2.3', openStorage: async () => storage });
  const result = await daemon.stop({ kind: 'signal', signal: 'SIGTERM' });
  t.equal(result.error, closeFailure, 'a clean signal stop still reports the failed close');
});

t.test('options are checked once, naming the option', async (t) => {
  const dir = t.testdir();
  const valid = daemonOptions({ db: 'data/db' }, dir);
  t.match(valid.values, {
    db: join(dir, 'data/db'),
    index: join(dir, 'data/index'),
    httpIp: '127.0.0.1',
    httpPort: 2113,
    chunkSize: 256 * 1024 * 1024,
  }, 'defaults, with the index next to the db directory');
  t.ok(Object.isFrozen(valid.values), 'the options are frozen');
  const invalid = (input: Parameters<typeof daemonOptions>[0], option: string) =>
    t.throws(() => daemonOptions(input, dir), { code: 'SVCDB_ERR_OPTION_INVALID', details: { option } }, option);
  invalid({ httpIp: 'localhost' }, '--http-ip');
  invalid({ httpPort: 65_536 }, '--http-port');
  invalid({ chunkSize: 1.5 }, '--chunk-size');
  invalid({ db: ' ' }, '--db');
  t.throws(() => daemonOptions({ db: 'a', index: 'a' }, dir), { code: 'SVCDB_ERR_OPTION_CONFLICT' }, '--index equal to --db');
});

t.test('svcdb serve', async (t) => {
  t.test('starts, answers /ping and /info, and 404s unknown routes', async (t) => {
    const dbPath = join(t.testdir(), 'db');
    const server = await startServer(t, { dbPath });
    t.equal(server.process.logLines.find((line) => line.msg === 'listening')?.dbPath, dbPath, 'the listening line names the db');

    const ping = await getJson(`${server.url}/ping`);
    t.equal(ping.status, 200);
    t.same(ping.body, { text: 'Ping request successfully handled' });

    const info = await getJson(`${server.url}/info`);
    t.equal(info.status, 200);
    t.match(info.body, { svcVersion: packageVersion, state: 'leader', features, authentication });

    const missing = await getJson(`${server.url}/streams-nope`);
    t.equal(missing.status, 404);
    t.equal(missing.body.code, 'SVCDB_ERR_HTTP_NOT_FOUND');

    const exit = await server.process.stop('SIGTERM');
    t.equal(exit.code, 0, 'SIGTERM stops it with exit code 0');
  });

  t.test('a second node on the same database is refused, and the lock is released on SIGTERM', async (t) => {
    const dbPath = join(t.testdir(), 'db');
    const first = await startServer(t, { dbPath });

    const second = await runCli(['serve', '--db', dbPath, '--http-port', '0']);
    t.equal(second.code, 3, 'exit code 3: locked');
    t.match(second.stderr, /SVCDB_ERR_STORAGE_LOCKED/);
    t.match(second.stderr, new RegExp(`${String(first.process.child.pid)}`), 'the message names the holder pid');
    t.match(second.stderr, /Hint: /);
    noStackTrace(t, second);

    const secondJson = await runCli(['serve', '--db', dbPath, '--http-port', '0', '--json']);
    t.equal(secondJson.code, 3);
    // stdout also carries the log lines; the result is the indented document among them.
    const document = /^\{\n[\s\S]*?^\}$/m.exec(secondJson.stdout);
    t.ok(document, 'stdout has a JSON document');
    t.match(JSON.parse(document?.[0] ?? 'null'), {
      error: { code: 'SVCDB_ERR_STORAGE_LOCKED', exitCode: 3, hint: String, message: String },
    }, '--json prints the error as JSON');

    const firstExit = await first.process.stop('SIGTERM');
    t.equal(firstExit.code, 0);
    t.ok(first.process.logLines.some((line) => line.msg === 'stopped' && line.clean === true), 'it logged a clean stop');
    t.notOk(existsSync(join(dbPath, 'svcdb.lock')), 'the lock file is gone');

    const third = await startServer(t, { dbPath });
    t.ok(third.port > 0, 'a new node starts on the same database');
    const thirdExit = await third.process.stop('SIGINT');
    t.equal(thirdExit.code, 0, 'SIGINT stops it with exit code 0');
  });

  t.test('takes its options from SVC_* environment variables', async (t) => {
    const dbPath = join(t.testdir(), 'db');
    const serve = new CliProcess(['serve', '--json'], { env: { SVC_DB: dbPath, SVC_HTTP_PORT: '0', SVC_CHUNK_SIZE: '1048576' } });
    t.teardown(() => serve.stop('SIGKILL'));
    const listening = await serve.waitForLog((line) => line.msg === 'listening');
    t.equal(listening.dbPath, dbPath);
    t.not(listening.port, 2113, 'SVC_HTTP_PORT=0 picked a free port');
    const exit = await serve.stop('SIGTERM');
    t.equal(exit.code, 0);
    const document = /^\{\n[\s\S]*?^\}$/m.exec(exit.stdout);
    t.same(JSON.parse(document?.[0] ?? 'null'), { address: '127.0.0.1', port: listening.port, stoppedBy: 'SIGTERM' },
      '--json prints the result of the run');
  });

  t.test('a bad option exits 2 and names the option', async (t) => {
    const dbPath = join(t.testdir(), 'db');
    const badIp = await runCli(['serve', '--db', dbPath, '--http-ip', 'not-an-ip']);
    t.equal(badIp.code, 2);
    t.match(badIp.stderr, /SVCDB_ERR_OPTION_INVALID/);
    t.match(badIp.stderr, /--http-ip/);
    noStackTrace(t, badIp);

    const badPort = await runCli(['serve', '--db', dbPath], { env: { SVC_HTTP_PORT: '70000' } });
    t.equal(badPort.code, 2, 'an out-of-range SVC_HTTP_PORT is a usage error');
    t.notOk(existsSync(join(dbPath, 'svcdb.lock')), 'nothing was opened');
  });

  t.test('a port in use exits 6 and releases the database', async (t) => {
    const blocker = createServer();
    await new Promise<void>((listening) => blocker.listen(0, '127.0.0.1', listening));
    t.teardown(() => new Promise((closed) => blocker.close(closed)));
    const { port } = blocker.address() as { port: number };
    const dbPath = join(t.testdir(), 'db');

    const exit = await runCli(['serve', '--db', dbPath, '--http-port', String(port)]);
    t.equal(exit.code, 6);
    t.match(exit.stderr, /SVCDB_ERR_HTTP_LISTEN/);
    t.match(exit.stderr, new RegExp(`127\\.0\\.0\\.1:${port}`));
    noStackTrace(t, exit);
    t.notOk(existsSync(join(dbPath, 'svcdb.lock')), 'the lock was released');
  });
});

t.test('a database made with --chunk-size 1048576 starts without the flag, keeps its size and says so', async (t) => {
  const dbPath = join(tempDirectory(t), 'db');
  const first = await startServer(t, { dbPath, args: ['--chunk-size', '1048576'] });
  const appended = await adminFetch(`${first.url}/streams/sized`, {
    method: 'POST', body: '{"n":1}',
    headers: { 'content-type': 'application/json', 'svc-eventtype': 'Sized', 'svc-eventid': '8f5a0a4e-4b1e-4c6a-9d1e-2f0a6c2b9d11' },
  });
  t.equal(appended.status, 201);
  t.equal((await first.process.stop('SIGTERM')).code, 0);

  const second = await startServer(t, { dbPath });
  const warning = await second.process.waitForLog((line) => line.databaseChunkSize !== undefined);
  t.match(warning, { level: 40, configuredChunkSize: 268435456, databaseChunkSize: 1048576 }, 'the log names both sizes');
  const read = await adminFetch(`${second.url}/streams/sized/0`, { headers: { accept: 'application/json' } });
  t.equal(read.status, 200, 'the event reads back');
  t.equal(await read.text(), '{"n":1}');
  const again = await adminFetch(`${second.url}/streams/sized`, {
    method: 'POST', body: '{"n":2}',
    headers: { 'content-type': 'application/json', 'svc-eventtype': 'Sized', 'svc-eventid': '8f5a0a4e-4b1e-4c6a-9d1e-2f0a6c2b9d12' },
  });
  t.equal(again.status, 201, 'and appends go on');
  t.equal((await second.process.stop('SIGTERM')).code, 0);
});
