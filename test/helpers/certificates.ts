/**
 * Real certificates for the TLS tests, made with the openssl command line: certificate
 * authorities, node certificates for 127.0.0.1 and localhost signed by them, an intermediate CA,
 * a key that belongs to no certificate and an expired node certificate. EC P-256 keys, so a whole
 * set takes a fraction of a second.
 */
import { execa } from 'execa';
import { X509Certificate, randomBytes } from 'node:crypto';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WAIT_DEADLINE_MS } from './wait.js';

export interface Authority {
  name: string;
  certFile: string;
  keyFile: string;
  pem: string;
}

export interface NodeCertificate {
  /** The leaf, followed by the intermediates when there are any. */
  certFile: string;
  keyFile: string;
  /** SHA-256 fingerprint of the leaf, as tls and X509Certificate print it (AB:CD:…). */
  fingerprint256: string;
  issuer: Authority;
}

export interface CertificateSet {
  ca: Authority;
  node: NodeCertificate;
  /** A second CA and a node certificate signed by it: what a rotation moves to. */
  nextCa: Authority;
  nextNode: NodeCertificate;
  /** A root, an intermediate signed by it, and a node certificate signed by the intermediate whose file holds both. */
  root: Authority;
  chainedNode: NodeCertificate;
  /** A private key of no certificate above. */
  strayKeyFile: string;
  /** Signed by `ca`, with a validity period that ended yesterday. */
  expiredNode: NodeCertificate;
}

const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
// Client authentication too: a node presents its certificate when it connects to another node.
const nodeExtensions = 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth,clientAuth\n';
const caExtensions = 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n';

function serial(): string {
  return `0x${randomBytes(8).toString('hex')}`;
}

/** Throws with openssl's own output, which says what went wrong. */
async function openssl(args: string[]): Promise<void> {
  try {
    await execa('openssl', args, { stdin: 'ignore', timeout: WAIT_DEADLINE_MS });
  } catch (error) {
    const { stderr, shortMessage, message } = error as { stderr?: string; shortMessage?: string; message: string };
    throw new Error(`openssl ${args.join(' ')} failed: ${stderr || shortMessage || message}`);
  }
}

/** Signs `csr` with `issuer` into `certFile`; negative days give a certificate that has expired. */
async function sign(csr: string, issuer: Authority, certFile: string, extensions: string, days: number): Promise<void> {
  const extensionsFile = `${certFile}.ext`;
  await writeFile(extensionsFile, extensions);
  await openssl(['x509', '-req', '-in', csr, '-CA', issuer.certFile, '-CAkey', issuer.keyFile, '-set_serial', serial(),
    '-days', String(days), '-extfile', extensionsFile, '-out', certFile]);
}

/** A self-signed root, or with `issuer` an intermediate CA signed by it. */
export async function createAuthority(dir: string, name: string, issuer?: Authority): Promise<Authority> {
  await mkdir(dir, { recursive: true });
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  const subject = `/CN=svcdb test ${name}`;
  if (issuer === undefined) {
    await openssl(['req', '-x509', ...ecKey, '-keyout', keyFile, '-out', certFile, '-days', '30', '-subj', subject,
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  } else {
    const csr = join(dir, `${name}.csr`);
    await openssl(['req', '-new', ...ecKey, '-keyout', keyFile, '-out', csr, '-subj', subject]);
    await sign(csr, issuer, certFile, caExtensions, 30);
  }
  return { name, certFile, keyFile, pem: await readFile(certFile, 'utf8') };
}

/** A certificate for 127.0.0.1 and localhost (common name localhost unless given); `chain` intermediates are appended after the leaf. */
export async function createNodeCertificate(
  dir: string, name: string, issuer: Authority, options: { days?: number; chain?: Authority[]; commonName?: string } = {},
): Promise<NodeCertificate> {
  await mkdir(dir, { recursive: true });
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  await openssl(['req', '-new', ...ecKey, '-keyout', keyFile, '-out', csr, '-subj', `/CN=${options.commonName ?? 'localhost'}`]);
  await sign(csr, issuer, certFile, nodeExtensions, options.days ?? 30);
  const leaf = await readFile(certFile, 'utf8');
  if (options.chain) await writeFile(certFile, [leaf, ...options.chain.map((authority) => authority.pem)].join(''));
  return { certFile, keyFile, fingerprint256: new X509Certificate(leaf).fingerprint256, issuer };
}

export async function createStrayKey(dir: string, name: string): Promise<string> {
  const keyFile = join(dir, `${name}.key`);
  await openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', keyFile]);
  return keyFile;
}

/** Every certificate the TLS tests use, made in `dir`. */
export async function createCertificateSet(dir: string): Promise<CertificateSet> {
  const [ca, nextCa, root] = await Promise.all([
    createAuthority(dir, 'ca'), createAuthority(dir, 'next-ca'), createAuthority(dir, 'root'),
  ]);
  const intermediate = await createAuthority(dir, 'intermediate', root);
  const [node, nextNode, chainedNode, expiredNode, strayKeyFile] = await Promise.all([
    createNodeCertificate(dir, 'node', ca),
    createNodeCertificate(dir, 'next-node', nextCa),
    createNodeCertificate(dir, 'chained-node', intermediate, { chain: [intermediate] }),
    createNodeCertificate(dir, 'expired-node', ca, { days: -1 }),
    createStrayKey(dir, 'stray'),
  ]);
  return { ca, node, nextCa, nextNode, root, chainedNode, strayKeyFile, expiredNode };
}

/** The paths a node is configured with; tests copy certificates into them to rotate. */
export interface LiveCertificatePaths {
  certFile: string;
  keyFile: string;
  /** A directory holding the trusted CA as ca.pem. */
  rootsDirectory: string;
}

export async function liveCertificatePaths(dir: string): Promise<LiveCertificatePaths> {
  const rootsDirectory = join(dir, 'roots');
  await mkdir(rootsDirectory, { recursive: true });
  return { certFile: join(dir, 'node.crt'), keyFile: join(dir, 'node.key'), rootsDirectory };
}

/** Puts a node certificate, its key and (when given) its CA at the configured paths. */
export async function installCertificate(live: LiveCertificatePaths, node: NodeCertificate, authority?: Authority): Promise<void> {
  await copyFile(node.certFile, live.certFile);
  await copyFile(node.keyFile, live.keyFile);
  if (authority) await copyFile(authority.certFile, join(live.rootsDirectory, 'ca.pem'));
}

/** The `svcdb serve` flags for the configured paths. */
export function tlsFlags(live: LiveCertificatePaths, withRoots = true): string[] {
  return [
    '--cert-file', live.certFile, '--cert-private-key-file', live.keyFile,
    ...(withRoots ? ['--trusted-root-certificates-path', live.rootsDirectory] : []),
  ];
}
