/**
 * Over TLS a node is let in to the replication endpoint by its certificate: a replica that
 * presents a certificate of the leader's CA with the leader's common name follows with no valid
 * password, while a certificate with another common name or from another CA, and a user outside
 * `$ops` and `$admins`, are refused. The same holds for a cluster follower's position reports,
 * sent over a kept-alive connection.
 */
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LeaderClient } from '../../src/daemon/replication/leader-client.js';
import {
  createAuthority, createNodeCertificate, installCertificate, liveCertificatePaths, tlsFlags, type NodeCertificate,
} from '../helpers/certificates.js';
import { adminHeaders, httpsRequest, type HttpsReply } from '../helpers/https.js';
import { basicAuth } from '../helpers/auth.js';
import { compareLogs, nodeDirectories, startLeader, startReplica, waitForReplicas } from '../helpers/replication.js';

t.test('a replica over TLS is let in by its node certificate; other certificates and plain users are not', async (t) => {
  const dir = t.testdir();
  const certs = join(dir, 'certs');
  const [ca, otherCa] = await Promise.all([createAuthority(certs, 'ca'), createAuthority(certs, 'other-ca')]);
  const [leaderCert, replicaCert, otherName, otherAuthority] = await Promise.all([
    createNodeCertificate(certs, 'leader', ca),
    createNodeCertificate(certs, 'replica', ca),
    createNodeCertificate(certs, 'other-name', ca, { commonName: 'someone-else' }),
    createNodeCertificate(certs, 'other-authority', otherCa),
  ]);
  const leaderLive = await liveCertificatePaths(join(dir, 'leader-tls'));
  await installCertificate(leaderLive, leaderCert, ca);
  const replicaLive = await liveCertificatePaths(join(dir, 'replica-tls'));
  await installCertificate(replicaLive, replicaCert, ca);

  const leaderDirs = nodeDirectories(dir, 'leader');
  const leader = await startLeader(t, leaderDirs, tlsFlags(leaderLive));
  t.match(leader.url, /^https:/, 'the leader serves HTTPS');
  const request = (path: string, options: { cert?: NodeCertificate; authorization?: string; body?: unknown; method?: string }) => loadPair(options.cert)
    .then((pair) => httpsRequest(`${leader.url}${path}`, {
      ca: ca.pem, method: options.method ?? 'POST', ...pair,
      headers: { 'content-type': 'application/json', ...(options.authorization ? { authorization: options.authorization } : {}) },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    }));
  const handshake = (options: { cert?: NodeCertificate; authorization?: string }) => request('/replication/handshake', { ...options, body: { epochs: [], writerCheckpoint: 0 } });

  const asNode = await handshake({ cert: replicaCert });
  t.equal(asNode.status, 200, 'a node certificate of the same CA and common name, no credentials: admitted');
  t.equal((JSON.parse(asNode.body) as { commonPosition: number }).commonPosition, 0, 'and answered the handshake');

  const otherNameReply = await handshake({ cert: otherName });
  t.equal(otherNameReply.status, 401, 'a certificate of the same CA with another common name: 401');
  t.equal(codeOf(otherNameReply), 'SVCDB_ERR_AUTH_REQUIRED', 'it counts as no credentials');
  const otherAuthorityReply = await handshake({ cert: otherAuthority });
  t.equal(otherAuthorityReply.status, 401, 'a certificate with the common name from another CA: 401');
  t.equal(codeOf(otherAuthorityReply), 'SVCDB_ERR_AUTH_REQUIRED');

  const created = await request('/users/', {
    authorization: adminHeaders.authorization, body: { loginName: 'reader', fullName: 'reader', password: 'secret', groups: [] },
  });
  t.equal(created.status, 201, 'a plain user is made');
  const plain = await handshake({ authorization: basicAuth('reader', 'secret') });
  t.equal(plain.status, 401, 'a user outside $ops and $admins: 401');
  t.equal(codeOf(plain), 'SVCDB_ERR_ACCESS_DENIED');
  const plainWithOtherName = await handshake({ cert: otherName, authorization: basicAuth('reader', 'secret') });
  t.equal(codeOf(plainWithOtherName), 'SVCDB_ERR_ACCESS_DENIED', 'a certificate with another common name does not lift a plain user');

  // Position reports go over the client's kept-alive connection, with the node certificate too.
  for (const [cert, admitted] of [[replicaCert, true], [otherName, false]] as const) {
    const pair = await loadPair(cert);
    const client = new LeaderClient(new URL(leader.url), { user: 'ops', password: 'not-the-password' }, () => ({ cert: pair.cert!, key: pair.key!, ca: [ca.pem] }));
    const reports = [0, 1].map(async () => client.reportPosition('replica-1', 0, AbortSignal.timeout(10_000)).then(() => 'sent', (error: Error & { code?: string }) => error.code));
    t.same(await Promise.all(reports), admitted ? ['sent', 'sent'] : ['SVCDB_ERR_REPLICA_LEADER_UNREACHABLE', 'SVCDB_ERR_REPLICA_LEADER_UNREACHABLE'],
      admitted ? 'reports with the node certificate are taken' : 'reports with another common name are refused');
    client.close();
  }

  for (let index = 0; index < 20; index++) {
    const eventId = randomUUID();
    const appended = await httpsRequest(`${leader.url}/streams/tls-${index % 3}`, {
      ca: ca.pem, method: 'POST',
      headers: { ...adminHeaders, 'content-type': 'application/json', 'svc-eventtype': 'tested', 'svc-eventid': eventId },
      body: JSON.stringify({ eventId, pad: 'x'.repeat(200) }),
    });
    t.equal(appended.status, 201, `event ${index} appended`);
  }
  // A password the leader does not know: the certificate is all that lets the replica in.
  const replicaDirs = nodeDirectories(dir, 'replica');
  await startReplica(t, replicaDirs, leader.url, [...tlsFlags(replicaLive), '--replica-password', 'not-the-password']);
  const end = await waitForReplicas(leaderDirs, [{ directories: replicaDirs }]);
  const comparison = compareLogs(leaderDirs.db, replicaDirs.db, end);
  t.same(comparison.different, [], 'the replica holds the leader\'s log byte for byte');
  t.ok(comparison.ongoingBytes > 0, 'records were compared');
});

async function loadPair(cert: NodeCertificate | undefined): Promise<{ cert?: string; key?: string }> {
  if (!cert) return {};
  return { cert: await readFile(cert.certFile, 'utf8'), key: await readFile(cert.keyFile, 'utf8') };
}

function codeOf(reply: HttpsReply): string {
  return (JSON.parse(reply.body) as { code: string }).code;
}
