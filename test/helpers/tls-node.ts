/** A child `svcdb serve` that serves HTTPS from certificate files the test can replace. */
import { join } from 'node:path';
import type { Test } from 'tap';
import { installCertificate, liveCertificatePaths, tlsFlags, type CertificateSet, type LiveCertificatePaths } from './certificates.js';
import { startServer, type RunningServer } from './cli.js';

export interface TlsNode {
  server: RunningServer;
  live: LiveCertificatePaths;
  dbPath: string;
}

/** Starts a node on the set's first node certificate and CA, in a directory of its own. */
export async function startTlsNode(t: Test, set: CertificateSet): Promise<TlsNode> {
  const dir = t.testdir();
  const live = await liveCertificatePaths(dir);
  await installCertificate(live, set.node, set.ca);
  const dbPath = join(dir, 'db');
  return { server: await startServer(t, { dbPath, args: tlsFlags(live) }), live, dbPath };
}
