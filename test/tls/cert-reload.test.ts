// `svcdb cert-reload` against a running `svcdb serve`, over HTTPS (--url, --ca-file) and by
// SIGHUP (--signal): it exits 0 only when the rotated certificate is in service, exits with the
// node's error when the reload failed, and names the fix when it cannot reach the node at all.
import { copyFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import {
  createCertificateSet, installCertificate,
} from '../helpers/certificates.js';
import { ADMIN_AUTH, basicAuth, createUser } from '../helpers/auth.js';
import { runCli, startServer, type CliExit } from '../helpers/cli.js';
import { httpsRequest, keepAliveAgent, peerCertificate } from '../helpers/https.js';
import { startTlsNode, type TlsNode } from '../helpers/tls-node.js';

const set = await createCertificateSet(join(t.testdir(), 'made'));

function certReload(args: string[]): Promise<CliExit> {
  return runCli(['cert-reload', ...args]);
}

function jsonOutput(exit: CliExit): Record<string, unknown> {
  return JSON.parse(exit.stdout) as Record<string, unknown>;
}

/** Rotates to the next CA, runs the command, and checks new and already open connections. */
async function rotateWith(t: Test, node: TlsNode, args: (node: TlsNode) => string[]): Promise<CliExit> {
  const agent = keepAliveAgent();
  t.teardown(() => agent.destroy());
  const before = await httpsRequest(`${node.server.url}/ping`, { ca: set.ca.pem, agent });
  t.equal(before.fingerprint256, set.node.fingerprint256, 'a connection is open with the first certificate');
  await installCertificate(node.live, set.nextNode, set.nextCa);

  const exit = await certReload(args(node));
  t.equal(exit.code, 0, `exit 0 (stderr: ${exit.stderr})`);
  t.same(await peerCertificate(node.server.port, [set.nextCa.pem]), { fingerprint256: set.nextNode.fingerprint256, authorized: true },
    'a new connection gets the new certificate');
  const after = await httpsRequest(`${node.server.url}/ping`, { ca: set.ca.pem, agent });
  t.match(after, { status: 200, reusedSocket: true, fingerprint256: set.node.fingerprint256 }, 'the open connection still works, on its certificate');
  return exit;
}

t.test('--signal rotates the certificate of the node running on --db', async (t) => {
  const node = await startTlsNode(t, set);
  const exit = await rotateWith(t, node, ({ dbPath }) => ['--signal', '--db', dbPath, '--json']);
  t.same(jsonOutput(exit), { via: 'signal', pid: node.server.process.child.pid, result: 'reloaded', sequence: 1 });
  t.ok(node.server.process.logLines.some((line) => line.msg === 'reload requested'), 'the node logged the signal');
});

t.test('--url with --ca-file rotates the certificate over HTTPS', async (t) => {
  const node = await startTlsNode(t, set);
  const exit = await rotateWith(t, node, ({ server }) => ['--url', server.url, '--ca-file', set.ca.certFile, '--json']);
  t.same(jsonOutput(exit), { via: 'http', url: node.server.url, result: 'reloaded' });
  const second = await certReload(['--url', node.server.url, '--ca-file', set.nextCa.certFile]);
  t.equal(second.code, 0, 'the next reload trusts the new CA');
  t.equal(second.stdout, '', 'quiet off a terminal');
});

t.test('a failed reload exits with the node\'s error, and the node keeps its certificate', async (t) => {
  const node = await startTlsNode(t, set);
  await copyFile(set.strayKeyFile, node.live.keyFile);
  const overHttp = await certReload(['--url', node.server.url, '--ca-file', set.ca.certFile]);
  t.equal(overHttp.code, 9, 'exit 9 over HTTP');
  t.match(overHttp.stderr, /SVCDB_ERR_CERT_KEY_MISMATCH/);
  t.match(overHttp.stderr, node.live.keyFile, 'the message names the file');
  t.match(overHttp.stderr, /Hint: Fix the file/);
  t.notMatch(overHttp.stderr, /^\s+at /m, 'no stack trace');

  await installCertificate(node.live, set.nextNode, set.ca);
  const bySignal = await certReload(['--signal', '--db', node.dbPath, '--json']);
  t.equal(bySignal.code, 9, 'exit 9 with --signal');
  t.match(jsonOutput(bySignal), { error: { code: 'SVCDB_ERR_CERT_UNTRUSTED', exitCode: 9, message: /not trusted by the roots/ } });
  t.same(await peerCertificate(node.server.port, [set.ca.pem]), { fingerprint256: set.node.fingerprint256, authorized: true },
    'new connections still get the first certificate');
});

t.test('when it cannot get through, it says what to fix', async (t) => {
  const node = await startTlsNode(t, set);
  const untrusted = await certReload(['--url', node.server.url]);
  t.equal(untrusted.code, 10, 'a certificate the command does not trust: exit 10');
  t.match(untrusted.stderr, /SVCDB_ERR_CLIENT_TLS/);
  t.match(untrusted.stderr, /--ca-file/);

  const plain = await certReload(['--url', node.server.url.replace('https:', 'http:')]);
  t.equal(plain.code, 10, 'plain HTTP to an HTTPS node: exit 10');
  t.match(plain.stderr, /SVCDB_ERR_CLIENT_UNREACHABLE.*\n.*--url/, 'which points at --url and its protocol');

  const notRunning = await certReload(['--signal', '--db', join(node.dbPath, '..', 'no-node-here')]);
  t.equal(notRunning.code, 10, '--signal without a node on --db: exit 10');
  t.match(notRunning.stderr, /SVCDB_ERR_CLIENT_NODE_NOT_RUNNING/);

  const stopped = await node.server.process.stop('SIGTERM');
  t.equal(stopped.code, 0);
  const refused = await certReload(['--url', node.server.url, '--ca-file', set.ca.certFile, '--json']);
  t.equal(refused.code, 10, 'nothing listening: exit 10');
  t.match(jsonOutput(refused), { error: { code: 'SVCDB_ERR_CLIENT_UNREACHABLE', message: /ECONNREFUSED/, hint: /--url/ } });

  const both = await certReload(['--signal', '--url', node.server.url]);
  t.equal(both.code, 2, '--signal with --url is a usage error');
});

t.test('a 401 is about the credentials; an answer it does not understand is reported as such', async (t) => {
  // A stand-in for a node that refuses a user, or for something at --url that is not a node.
  const seen: string[] = [];
  const server: Server = createServer((request, response) => {
    const authorization = String(request.headers.authorization);
    seen.push(authorization);
    const [username] = Buffer.from(authorization.replace(/^Basic /, ''), 'base64').toString().split(':');
    if (username === 'ops') response.writeHead(401, { 'content-type': 'application/json' }).end('{"code":"SVCDB_ERR_X","message":"no"}');
    else response.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  t.teardown(() => new Promise((closed) => server.close(closed)));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  const denied = await runCli(['cert-reload', '--url', url], { env: { SVC_USERNAME: 'ops', SVC_PASSWORD: 'wrong' } });
  t.equal(denied.code, 11, 'a 401: exit 11');
  t.match(denied.stderr, /SVCDB_ERR_CLIENT_UNAUTHORIZED/);
  t.match(denied.stderr, /user ops; check --username and --password/);

  const other = await certReload(['--url', url]);
  t.equal(other.code, 10, 'a reply it does not understand: exit 10');
  t.match(other.stderr, /SVCDB_ERR_CLIENT_UNEXPECTED_REPLY/);
  t.match(other.stderr, /answered 502: bad gateway/);

  t.same(seen, [basicAuth('ops', 'wrong'), ADMIN_AUTH], 'credentials from SVC_USERNAME and SVC_PASSWORD, else admin and changeit');
});

t.test('against a real node: wrong credentials and a user outside $admins and $ops exit 11; ops may reload', async (t) => {
  const server = await startServer(t, { dbPath: join(t.testdir(), 'db') });
  const wrong = await certReload(['--url', server.url, '--username', 'admin', '--password', 'wrong']);
  t.equal(wrong.code, 11, 'a wrong password: exit 11');
  t.match(wrong.stderr, /SVCDB_ERR_CLIENT_UNAUTHORIZED/);

  await createUser(server.url, { loginName: 'viewer', password: 'pw' });
  const viewer = await certReload(['--url', server.url, '--username', 'viewer', '--password', 'pw']);
  t.equal(viewer.code, 11, 'a plain user: exit 11');

  const ops = await certReload(['--url', server.url, '--username', 'ops', '--password', 'changeit', '--json']);
  t.equal(ops.code, 0, `ops: exit 0 (stderr: ${ops.stderr})`);
  t.same(jsonOutput(ops), { via: 'http', url: server.url, result: 'nothing to reload' }, 'the result does not claim a reload the node did not do');
  t.ok(server.process.logLines.some((line) => line.msg === 'no certificates to reload'), 'a plain HTTP node had nothing to reload');
});
