// `svcdb status` as pg_isready is used: exit 0 when the node serves, 10 when nothing answers,
// 18 when the node answers but is starting. The starting node is a stand-in HTTP server that
// answers GET /info as a node does before it listens for requests (the real one is in that
// state too briefly to meet).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { runCli, startServer } from '../helpers/cli.js';
import { tempDirectory } from '../helpers/engine.js';

t.test('a running node: exit 0, its state and version', async (t) => {
  const server = await startServer(t, { dbPath: join(tempDirectory(t), 'db') });
  const text = await runCli(['status', '--url', server.url]);
  t.equal(text.code, ExitCode.success, text.stderr);
  t.equal(text.stdout, `${server.url}: leader, svcdb 0.1.0\n`);
  const json = await runCli(['status', '--json'], { env: { SVC_URL: server.url } });
  t.same(JSON.parse(json.stdout), { url: server.url, state: 'leader', version: '0.1.0', serving: true }, 'SVC_URL names the node');

  await server.process.stop('SIGTERM');
  const down = await runCli(['status', '--url', server.url, '--json']);
  t.equal(down.code, ExitCode.unreachable, 'the same node stopped');
  t.equal(JSON.parse(down.stdout).error.code, 'SVCDB_ERR_CLIENT_UNREACHABLE');
});

t.test('a node that answers but is starting: exit 18', async (t) => {
  const starting = createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ svcVersion: '0.1.0', state: 'initializing', features: {}, authentication: { type: 'internal', properties: null } }));
  });
  await new Promise<void>((resolve) => starting.listen(0, '127.0.0.1', resolve));
  t.teardown(() => starting.close());
  const url = `http://127.0.0.1:${(starting.address() as AddressInfo).port}`;
  const exit = await runCli(['status', '--url', url]);
  t.equal(exit.code, ExitCode.notReady);
  t.match(exit.stderr, /answers but is initializing, not serving requests.*SVCDB_ERR_CLIENT_NODE_NOT_READY/);
  t.equal(exit.stdout, '');
});
