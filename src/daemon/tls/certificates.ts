/**
 * The node's certificate material, read from the files the options name and checked all or
 * nothing: every file readable, the certificates and the key parse, the key belongs to the leaf,
 * every certificate of the chain file is within its validity period and, with trusted roots, the
 * chain leads from the leaf through the intermediates to one of them. Any failure is a coded
 * error naming the option and the file; nothing half-checked is returned, so a failed reload
 * leaves the certificates in service as they were.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { Errors } from '../../common/errors.js';

export interface CertificatePaths {
  certFile: string;
  privateKeyFile: string;
  /** A directory of *.pem and *.crt files or one PEM file; '' when no roots are configured. */
  trustedRootsPath: string;
}

/** What a TLS server context is built from, with the leaf for log lines. */
export interface CertificateMaterial {
  /** The leaf and its intermediates, PEM, as the node presents them. */
  readonly cert: string;
  readonly key: string;
  /** The trusted roots, one PEM certificate each; absent without --trusted-root-certificates-path. */
  readonly ca?: readonly string[];
  readonly leaf: X509Certificate;
}

interface ParsedCertificate {
  pem: string;
  certificate: X509Certificate;
}

const CERT_OPTION = '--cert-file';
const KEY_OPTION = '--cert-private-key-file';
const ROOTS_OPTION = '--trusted-root-certificates-path';
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const ROOT_FILE_NAME = /\.(pem|crt)$/i;

export async function loadCertificates(paths: CertificatePaths, now: Date = new Date()): Promise<CertificateMaterial> {
  const certPem = await readText(CERT_OPTION, paths.certFile);
  const keyPem = await readText(KEY_OPTION, paths.privateKeyFile);
  const roots = paths.trustedRootsPath === '' ? undefined : await readTrustedRoots(paths.trustedRootsPath);
  const chain = parseCertificates(CERT_OPTION, paths.certFile, certPem).map((parsed) => parsed.certificate);
  const [leaf, ...intermediates] = chain;
  checkPrivateKey(paths, leaf, keyPem);
  for (const certificate of chain) checkValidityPeriod(paths.certFile, certificate, now);
  if (roots !== undefined) checkChain(paths, leaf, intermediates, roots.map((root) => root.certificate));
  const material = { cert: certPem, key: keyPem, ...(roots && { ca: roots.map((root) => root.pem) }), leaf };
  checkSecureContext(paths, material);
  return material;
}

/** The options of a TLS server context built from `material`. */
export function secureContextOptions(material: CertificateMaterial): SecureContextOptions {
  return { cert: material.cert, key: material.key, ca: material.ca ? [...material.ca] : undefined };
}

/** The common name (CN) of a certificate's subject, '' when it has none. */
export function commonNameOf(certificate: X509Certificate): string {
  for (const part of certificate.subject.split('\n')) {
    if (part.startsWith('CN=')) return part.slice(3);
  }
  return '';
}

/** One line naming a certificate, for messages and logs (Node separates name parts with newlines). */
export function distinguishedName(name: string): string {
  return name.split('\n').join(', ');
}

async function readText(option: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw Errors.certFileUnreadable.create(option, file, describeReadError(error as NodeJS.ErrnoException));
  }
}

function describeReadError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT':
      return 'the file does not exist';
    case 'EISDIR':
      return 'it is a directory, not a file';
    case 'EACCES':
      return 'permission denied';
    default:
      return error.code ?? error.message;
  }
}

function parseCertificates(option: string, file: string, text: string): ParsedCertificate[] {
  const blocks = text.match(PEM_CERTIFICATE);
  if (blocks === null) throw Errors.certInvalid.create(option, file, 'holds no PEM certificate');
  return blocks.map((pem, index) => {
    try {
      return { pem, certificate: new X509Certificate(pem) };
    } catch (error) {
      throw Errors.certInvalid.create(option, file, `holds a certificate that does not parse (number ${index + 1}: ${(error as Error).message})`);
    }
  });
}

function checkPrivateKey(paths: CertificatePaths, leaf: X509Certificate, keyPem: string): void {
  let key;
  try {
    key = createPrivateKey(keyPem);
  } catch (error) {
    throw Errors.certKeyInvalid.create(paths.privateKeyFile, (error as Error).message);
  }
  if (!leaf.checkPrivateKey(key)) throw Errors.certKeyMismatch.create(paths.privateKeyFile, paths.certFile);
}

function checkValidityPeriod(file: string, certificate: X509Certificate, now: Date): void {
  const notBefore = new Date(certificate.validFrom);
  const notAfter = new Date(certificate.validTo);
  const subject = distinguishedName(certificate.subject);
  if (now < notBefore) throw Errors.certValidityPeriod.create(file, subject, `is not valid before ${notBefore.toISOString()}`);
  if (now > notAfter) throw Errors.certValidityPeriod.create(file, subject, `expired on ${notAfter.toISOString()}`);
}

/**
 * Builds a TLS context once, as the server will: OpenSSL has rules of its own (key sizes, signature
 * algorithms by security level), and a server whose context fails to build must never be the
 * first to find out.
 */
function checkSecureContext(paths: CertificatePaths, material: CertificateMaterial): void {
  try {
    createSecureContext(secureContextOptions(material));
  } catch (error) {
    throw Errors.certRefused.create(paths.certFile, paths.privateKeyFile, (error as Error).message);
  }
}

/** The certificates of a PEM file, or of every *.pem and *.crt file of a directory. */
async function readTrustedRoots(path: string): Promise<ParsedCertificate[]> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch (error) {
    throw Errors.certFileUnreadable.create(ROOTS_OPTION, path, describeReadError(error as NodeJS.ErrnoException));
  }
  if (!isDirectory) return parseCertificates(ROOTS_OPTION, path, await readText(ROOTS_OPTION, path));
  let names: string[];
  try {
    names = (await readdir(path)).filter((name) => ROOT_FILE_NAME.test(name)).sort();
  } catch (error) {
    throw Errors.certFileUnreadable.create(ROOTS_OPTION, path, describeReadError(error as NodeJS.ErrnoException));
  }
  if (names.length === 0) throw Errors.certNoTrustedRoots.create(path);
  const roots: ParsedCertificate[] = [];
  for (const name of names) {
    const file = join(path, name);
    roots.push(...parseCertificates(ROOTS_OPTION, file, await readText(ROOTS_OPTION, file)));
  }
  return roots;
}

/**
 * Walks from the leaf to a trusted root: each step needs a CA certificate whose name is the
 * issuer's and whose public key verifies the signature. Intermediates come from the chain file
 * in any order; a root may also be the leaf itself (a self-signed certificate trusted as is).
 */
function checkChain(paths: CertificatePaths, leaf: X509Certificate, intermediates: X509Certificate[], roots: X509Certificate[]): void {
  const unused = [...intermediates];
  let current = leaf;
  for (;;) {
    if (roots.some((root) => root.fingerprint256 === current.fingerprint256 || issued(root, current))) return;
    const next = unused.findIndex((candidate) => issued(candidate, current));
    if (next === -1) throw Errors.certUntrusted.create(paths.certFile, paths.trustedRootsPath, whyNotIssued(current, [...unused, ...roots]));
    [current] = unused.splice(next, 1);
  }
}

function issued(issuer: X509Certificate, subject: X509Certificate): boolean {
  return issuer.ca && subject.checkIssued(issuer) && subject.verify(issuer.publicKey);
}

function whyNotIssued(subject: X509Certificate, candidates: X509Certificate[]): string {
  const name = distinguishedName(subject.subject);
  const issuer = distinguishedName(subject.issuer);
  if (candidates.some((candidate) => subject.checkIssued(candidate))) {
    return `${name} names ${issuer} as its issuer, but no certificate of that name holds the key that signed it (a CA re-created with a new key?)`;
  }
  return `${name} was issued by ${issuer}, which is neither an intermediate in the file nor a trusted root`;
}
