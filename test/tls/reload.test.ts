// Certificate reload on a running `svcdb serve`, by POST /admin/reloadconfig and by SIGHUP: a
// rotated certificate reaches new connections while an open connection keeps working, a failed
// reload changes nothing and answers with its coded error, and every outcome is logged and
// recorded in <db>/svcdb-reload.json.
import { copyFile, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import {
  createCertificateSet, installCertificate,
} from '../helpers/certificates.js';
import { CliProcess, startServer, type RunningServer } from '../helpers/cli.js';
import { adminHeaders, httpsRequest, keepAliveAgent, peerCertificate } from '../helpers/https.js';
import { startTlsNode } from '../helpers/tls-node.js';

const set = await createCertificateSet(join(t.testdir(), 'made'));
const bothCas = [set.ca.pem, set.nextCa.pem];

function reloadOverHttp(server: RunningServer) {
  return httpsRequest(`${server.url}/admin/reloadconfig`, { method: 'POST', headers: adminHeaders, ca: bothCas });
}

function logged(server: RunningServer, msg: string, sequence: number) {
  return server.process.waitForLog((line) => line.msg === msg && line.sequence === sequence);
}

async function reloadStatus(dbPath: string) {
  return JSON.parse(await readFile(join(dbPath, 'svcdb-reload.json'), 'utf8')) as Record<string, unknown>;
}

t.test('POST /admin/reloadconfig serves a rotated certificate to new connections; an open connection keeps working', async (t) => {
  const { server, live, dbPath } = await startTlsNode(t, set);
  const agent = keepAliveAgent();
  t.teardown(() => agent.destroy());
  const before = await httpsRequest(`${server.url}/ping`, { ca: set.ca.pem, agent });
  t.equal(before.fingerprint256, set.node.fingerprint256, 'the open connection was made with the first certificate');

  await installCertificate(live, set.nextNode, set.nextCa);
  const reply = await reloadOverHttp(server);
  t.equal(reply.status, 200);
  t.equal(reply.body, '', 'an empty body');

  const fresh = await peerCertificate(server.port, [set.nextCa.pem]);
  t.same(fresh, { fingerprint256: set.nextNode.fingerprint256, authorized: true }, 'a new connection gets the new certificate, trusted by the new CA');
  const after = await httpsRequest(`${server.url}/ping`, { ca: set.ca.pem, agent });
  t.equal(after.status, 200, 'the open connection still answers');
  t.ok(after.reusedSocket, 'over the connection opened before the reload');
  t.equal(after.fingerprint256, set.node.fingerprint256, 'which keeps the certificate it was made with');

  const line = await logged(server, 'certificates reloaded', 1);
  t.match(line, { trigger: 'http', fingerprint256: set.nextNode.fingerprint256, issuer: 'CN=svcdb test next-ca' });
  t.match(await reloadStatus(dbPath), {
    pid: server.process.child.pid, sequence: 1, trigger: 'http', ok: true, result: 'reloaded', time: String,
  }, 'the outcome is recorded for svcdb cert-reload');
});

t.test('a failed reload keeps the certificate in service and answers with its coded error', async (t) => {
  const { server, live, dbPath } = await startTlsNode(t, set);
  const failures: Array<[string, () => Promise<void>, string, string]> = [
    ['a missing key file', () => rm(live.keyFile), 'SVCDB_ERR_CERT_FILE_UNREADABLE', live.keyFile],
    ['a key of another certificate', () => copyFile(set.strayKeyFile, live.keyFile), 'SVCDB_ERR_CERT_KEY_MISMATCH', live.keyFile],
    ['a certificate the configured CA did not issue', () => installCertificate(live, set.nextNode), 'SVCDB_ERR_CERT_UNTRUSTED', live.certFile],
    ['an expired certificate', () => installCertificate(live, set.expiredNode), 'SVCDB_ERR_CERT_VALIDITY_PERIOD', live.certFile],
  ];
  let sequence = 0;
  for (const [name, breakFiles, code, file] of failures) {
    await breakFiles();
    const reply = await reloadOverHttp(server);
    sequence++;
    t.equal(reply.status, 400, `${name}: 400`);
    const body = JSON.parse(reply.body) as { code: string; message: string };
    t.same(Object.keys(body).sort(), ['code', 'message'], `${name}: a coded body`);
    t.equal(body.code, code, `${name}: ${code}`);
    t.match(body.message, file, `${name}: the message names the file`);
    t.same(await peerCertificate(server.port, [set.ca.pem]), { fingerprint256: set.node.fingerprint256, authorized: true },
      `${name}: new connections still get the first certificate`);
    t.match(await logged(server, 'certificate reload failed', sequence), { code, trigger: 'http', level: 50 }, `${name}: logged as an error`);
    t.match(await reloadStatus(dbPath), { sequence, ok: false, error: { code, message: body.message } }, `${name}: recorded`);
    await installCertificate(live, set.node, set.ca);
  }
  const repaired = await reloadOverHttp(server);
  t.equal(repaired.status, 200, 'once the files are fixed, a reload succeeds again');
});

t.test('SIGHUP reloads the certificates and the node keeps running', async (t) => {
  const { server, live, dbPath } = await startTlsNode(t, set);
  await installCertificate(live, set.nextNode, set.nextCa);
  server.process.child.kill('SIGHUP');
  t.match(await logged(server, 'certificates reloaded', 1), { trigger: 'signal', fingerprint256: set.nextNode.fingerprint256 });
  t.same(await peerCertificate(server.port, [set.nextCa.pem]), { fingerprint256: set.nextNode.fingerprint256, authorized: true });

  await copyFile(set.strayKeyFile, live.keyFile);
  server.process.child.kill('SIGHUP');
  t.match(await logged(server, 'certificate reload failed', 2), { trigger: 'signal', code: 'SVCDB_ERR_CERT_KEY_MISMATCH' });
  t.match(await reloadStatus(dbPath), { sequence: 2, trigger: 'signal', ok: false, error: { code: 'SVCDB_ERR_CERT_KEY_MISMATCH' } });
  t.same(await peerCertificate(server.port, [set.nextCa.pem]), { fingerprint256: set.nextNode.fingerprint256, authorized: true },
    'the failed reload left the rotated certificate in service');
  t.equal((await server.process.stop('SIGTERM')).code, 0, 'and it still stops cleanly');
});

t.test('a SIGHUP while the node starts does not stop it; the reload happens once it is up', async (t) => {
  const dbPath = join(t.testdir(), 'db');
  const serve = new CliProcess(['serve', '--db', dbPath, '--http-port', '0']);
  t.teardown(() => serve.stop('SIGKILL'));
  // The listener is installed before this line is written.
  await serve.waitForLog((line) => line.msg === 'starting');
  serve.child.kill('SIGHUP');
  t.match(await serve.waitForLog((line) => line.msg === 'no certificates to reload'), { trigger: 'signal', sequence: 1 });
  await serve.waitForLog((line) => line.msg === 'listening');
  t.equal((await serve.stop('SIGTERM')).code, 0, 'it runs until asked to stop');
});

t.test('without certificates a reload succeeds with nothing to reload', async (t) => {
  const dbPath = join(t.testdir(), 'db');
  const server = await startServer(t, { dbPath });
  const reply = await fetch(`${server.url}/admin/reloadconfig`, { method: 'POST', headers: adminHeaders });
  t.equal(reply.status, 200);
  t.equal(await reply.text(), '');
  t.match(await logged(server, 'no certificates to reload', 1), { trigger: 'http' });
  server.process.child.kill('SIGHUP');
  t.match(await logged(server, 'no certificates to reload', 2), { trigger: 'signal' }, 'SIGHUP does not stop a plain HTTP node either');
  t.match(await reloadStatus(dbPath), { sequence: 2, ok: true, result: 'nothing to reload' });
  t.equal((await server.process.stop('SIGTERM')).code, 0);
});
