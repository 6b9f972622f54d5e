// The log a node writes when stdout is not a terminal is JSON lines for machines: every line a
// node prints over a start, appends, a failed request, a stop and a restart is one JSON object
// that carries no key twice (nested pino children once bound `component` twice, and the
// shutdown route `reqId` twice), and each start has exactly one "listening" line, also on
// 0.0.0.0 where fastify announces every interface.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import t from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { startServer, type RunningServer } from '../helpers/cli.js';
import { duplicateKeys } from '../helpers/json-keys.js';

const verbose = ['--log-level', 'trace', '--log-http-requests'];

function stdoutLines(server: RunningServer): string[] {
  return server.process.stdout.split('\n').filter((line) => line !== '');
}

/** The lines whose message mentions listening (fastify's "Server listening at …" as well). */
function listeningLines(server: RunningServer): string[] {
  return server.process.logLines.filter((line) => /listening/i.test(String(line.msg))).map((line) => JSON.stringify(line));
}

async function append(url: string, stream: string): Promise<number> {
  const response = await adminFetch(`${url}/streams/${stream}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'svc-eventtype': 'Logged', 'svc-eventid': randomUUID() },
    body: JSON.stringify({ at: Date.now() }),
  });
  await response.arrayBuffer();
  return response.status;
}

t.test('the duplicate-key scan finds keys repeated in one object, at any depth, and nothing else', async (t) => {
  t.same(duplicateKeys('{"component":"storage","component":"index","msg":"x"}'), ['component']);
  t.same(duplicateKeys('{"a":{"b":1,"b":2},"c":[{"d":1,"d":1}]}'), ['a.b', 'c.[].d']);
  t.same(duplicateKeys('{"a":{"code":1},"code":"x","s":"\\"code\\":"}'), [], 'equal keys in different objects, and keys inside strings, are fine');
});

t.test('start, appends, a refused request, stop and restart: JSON lines, no key twice, one listening line per start', async (t) => {
  const dbPath = join(t.testdir(), 'db');
  const runs: RunningServer[] = [];
  for (let start = 0; start < 2; start++) {
    const server = await startServer(t, { dbPath, args: verbose });
    runs.push(server);
    for (let index = 0; index < 3; index++) t.equal(await append(server.url, `logged-${start}`), 201, 'append acknowledged');
    const refused = await fetch(`${server.url}/streams/logged-${start}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[' });
    await refused.arrayBuffer();
    t.equal(refused.status, 401, 'a request without credentials is refused');
    if (start === 0) {
      const shutdown = await adminFetch(`${server.url}/admin/shutdown`, { method: 'POST' });
      await shutdown.arrayBuffer();
    } else {
      server.process.child.kill('SIGTERM');
    }
    const exit = await server.process.exited;
    t.equal(exit.code, 0, `start ${start + 1} stopped cleanly`);
  }

  for (const [run, server] of runs.entries()) {
    const lines = stdoutLines(server);
    t.ok(lines.length >= 10, `start ${run + 1} logged its start, requests and stop (${lines.length} lines)`);
    for (const line of lines) {
      let record: Record<string, unknown> | undefined;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        record = undefined;
      }
      if (record === undefined || typeof record.msg !== 'string' || typeof record.level !== 'number') {
        t.fail(`not a pino JSON line: ${line}`);
        continue;
      }
      const duplicates = duplicateKeys(line);
      if (duplicates.length > 0) t.fail(`${duplicates.join(', ')} twice in: ${line}`);
    }
    const listening = listeningLines(server);
    t.equal(listening.length, 1, `start ${run + 1}: one line mentions listening:\n${listening.join('\n')}`);
    t.match(JSON.parse(listening[0] ?? '{}'), {
      msg: 'listening', address: '127.0.0.1', port: server.port, protocol: 'http',
      url: `http://127.0.0.1:${server.port}`, consoleUrl: `http://127.0.0.1:${server.port}/web`,
    });
    t.ok(lines.some((line) => line.includes('"msg":"request"')), 'the requests were logged (--log-http-requests)');
    t.ok(lines.some((line) => line.includes('"msg":"stopped"')), 'the stop was logged');
  }
  t.ok(stdoutLines(runs[0]).some((line) => line.includes('"msg":"shutdown requested over HTTP"')), 'the shutdown request was logged');
});

t.test('on 0.0.0.0 the node still writes one listening line, not one per interface', async (t) => {
  const server = await startServer(t, { dbPath: join(t.testdir(), 'db'), args: ['--http-ip', '0.0.0.0', '--insecure'] });
  server.process.child.kill('SIGTERM');
  await server.process.exited;
  const listening = listeningLines(server);
  t.equal(listening.length, 1, `one line mentions listening:\n${listening.join('\n')}`);
  t.match(JSON.parse(listening[0] ?? '{}'), { msg: 'listening', address: '0.0.0.0', port: server.port, url: `http://localhost:${server.port}` }, 'a URL a browser can open');
});
