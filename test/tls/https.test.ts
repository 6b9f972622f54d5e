// `svcdb serve` with certificates: HTTPS that a client verifies against the CA, a non-loopback
// address allowed with TLS, and start-up refusals of certificate options and files.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { createCertificateSet, installCertificate, liveCertificatePaths, tlsFlags } from '../helpers/certificates.js';
import { runCli, startServer } from '../helpers/cli.js';
import { adminHeaders, httpsRequest, peerCertificate } from '../helpers/https.js';

const set = await createCertificateSet(join(t.testdir(), 'made'));

t.test('with a certificate and key the node serves HTTPS that verifies against its CA', async (t) => {
  const dir = t.testdir();
  const live = await liveCertificatePaths(dir);
  await installCertificate(live, set.node, set.ca);
  const server = await startServer(t, { dbPath: join(dir, 'db'), args: tlsFlags(live) });
  t.match(server.url, /^https:\/\/127\.0\.0\.1:/, 'the listening line says https');
  const loaded = server.process.logLines.find((line) => line.msg === 'certificate loaded');
  t.match(loaded, { fingerprint256: set.node.fingerprint256, subject: 'CN=localhost', certFile: live.certFile }, 'the log names the certificate');

  const ping = await httpsRequest(`${server.url}/ping`, { ca: set.ca.pem });
  t.equal(ping.status, 200);
  t.same(JSON.parse(ping.body), { text: 'Ping request successfully handled' });
  t.equal(ping.fingerprint256, set.node.fingerprint256, 'the node presents its certificate');

  const append = await httpsRequest(`${server.url}/streams/orders`, {
    ca: set.ca.pem, method: 'POST', headers: { 'content-type': 'application/vnd.svc.events+json', ...adminHeaders },
    body: JSON.stringify([{ eventId: 'fbf4a1a1-b4a3-4dfe-a01f-ec52c34e16e4', eventType: 'placed', data: { total: 3 } }]),
  });
  t.equal(append.status, 201);
  t.equal(append.headers.location, `${server.url}/streams/orders/0`, 'links the node builds say https');

  // The node may send its root along (OpenSSL completes the chain from the trusted roots); either way it is not trusted.
  await t.rejects(httpsRequest(`${server.url}/ping`, { ca: set.nextCa.pem }), { code: /^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN)$/ },
    'a client that trusts another CA refuses the node');
  t.equal((await server.process.stop('SIGTERM')).code, 0, 'it stops cleanly');
});

t.test('a chain through an intermediate is served whole, so a client that trusts only the root verifies it', async (t) => {
  const dir = t.testdir();
  const live = await liveCertificatePaths(dir);
  await installCertificate(live, set.chainedNode, set.root);
  const server = await startServer(t, { dbPath: join(dir, 'db'), args: tlsFlags(live) });
  const ping = await httpsRequest(`${server.url}/ping`, { ca: set.root.pem });
  t.equal(ping.status, 200);
  t.equal(ping.fingerprint256, set.chainedNode.fingerprint256);
});

t.test('with TLS a non-loopback address is allowed without --insecure', async (t) => {
  const dir = t.testdir();
  const live = await liveCertificatePaths(dir);
  await installCertificate(live, set.node, set.ca);
  const server = await startServer(t, { dbPath: join(dir, 'db'), args: [...tlsFlags(live), '--http-ip', '0.0.0.0'] });
  t.match(server.url, /^https:\/\/0\.0\.0\.0:/, 'it listens on every address');
  const peer = await peerCertificate(server.port, [set.ca.pem]);
  t.same(peer, { fingerprint256: set.node.fingerprint256, authorized: true });
});

t.test('over TLS with --enable-trusted-auth, a proxy asserts who the client is', async (t) => {
  const dir = t.testdir();
  const live = await liveCertificatePaths(dir);
  await installCertificate(live, set.node, set.ca);
  const server = await startServer(t, { dbPath: join(dir, 'db'), args: [...tlsFlags(live), '--enable-trusted-auth'] });
  const options = (asserted: string) => httpsRequest(`${server.url}/info/options`, { ca: set.ca.pem, headers: { 'svc-trustedauth': asserted } });
  t.equal((await options('ops;$ops')).status, 200, 'an asserted $ops member reads the options');
  const plain = await options('carol');
  t.equal(plain.status, 401, 'a plain user may not');
  t.match(JSON.parse(plain.body), { code: 'SVCDB_ERR_ACCESS_DENIED' });
});

t.test('start-up refusals exit before the database is opened', async (t) => {
  const dir = t.testdir();
  const dbPath = join(dir, 'db');
  const live = await liveCertificatePaths(dir);
  await installCertificate(live, set.node, set.ca);

  const plain = await runCli(['serve', '--db', dbPath, '--http-port', '0', '--http-ip', '0.0.0.0']);
  t.equal(plain.code, 2, 'plain HTTP on 0.0.0.0 without --insecure is still a usage error');
  t.match(plain.stderr, /SVCDB_ERR_OPTION_CONFLICT/);

  const keyless = await runCli(['serve', '--db', dbPath, '--http-port', '0', '--cert-file', live.certFile]);
  t.equal(keyless.code, 2, 'a certificate without its key is a usage error');
  t.match(keyless.stderr, /--cert-file and --cert-private-key-file conflict/);

  const missing = join(dir, 'missing.key');
  const unreadable = await runCli(['serve', '--db', dbPath, '--http-port', '0', '--cert-file', live.certFile, '--cert-private-key-file', missing]);
  t.equal(unreadable.code, 9, 'a key file that cannot be read exits 9');
  t.match(unreadable.stderr, /SVCDB_ERR_CERT_FILE_UNREADABLE/);
  t.match(unreadable.stderr, new RegExp(`--cert-private-key-file ${missing}: the file does not exist`));
  t.notMatch(unreadable.stderr, /^\s+at /m, 'no stack trace');

  const mismatch = await runCli(['serve', '--db', dbPath, '--http-port', '0', '--json',
    '--cert-file', live.certFile, '--cert-private-key-file', set.strayKeyFile]);
  t.equal(mismatch.code, 9);
  t.match(mismatch.stdout, /"code": "SVCDB_ERR_CERT_KEY_MISMATCH"/, '--json prints the coded error');
  t.notOk(existsSync(join(dbPath, 'svcdb.lock')), 'no lock was taken');
});
