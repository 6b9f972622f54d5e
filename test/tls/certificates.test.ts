// The certificate loader on real files made by openssl: what it accepts (a leaf with its key, a
// chain through an intermediate, roots as a directory or a file) and every way it refuses, each
// with its code and a message that names the file.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { loadCertificates, type CertificatePaths } from '../../src/daemon/tls/certificates.js';
import { createCertificateSet } from '../helpers/certificates.js';

const dir = t.testdir();
const set = await createCertificateSet(join(dir, 'made'));
const caDirectory = join(dir, 'ca-roots');
await mkdir(caDirectory);
await writeFile(join(caDirectory, 'ca.pem'), set.ca.pem);
await writeFile(join(caDirectory, 'notes.txt'), 'not a certificate, and not read: only *.pem and *.crt are');

const nodePaths: CertificatePaths = { certFile: set.node.certFile, privateKeyFile: set.node.keyFile, trustedRootsPath: caDirectory };

t.test('a node certificate with its key and its CA among the roots loads', async (t) => {
  const material = await loadCertificates(nodePaths);
  t.equal(material.leaf.fingerprint256, set.node.fingerprint256);
  t.same(material.ca, [set.ca.pem.trim()], 'the roots of the directory, one PEM each');
  t.match(material.key, /BEGIN PRIVATE KEY/);
});

t.test('without trusted roots only the certificate and key are checked', async (t) => {
  const material = await loadCertificates({ ...nodePaths, trustedRootsPath: '' });
  t.equal(material.leaf.fingerprint256, set.node.fingerprint256);
  t.equal(material.ca, undefined, 'no roots are handed to TLS');
});

t.test('a chain through an intermediate in the certificate file leads to the root, given as one file', async (t) => {
  const material = await loadCertificates({
    certFile: set.chainedNode.certFile, privateKeyFile: set.chainedNode.keyFile, trustedRootsPath: set.root.certFile,
  });
  t.equal(material.leaf.fingerprint256, set.chainedNode.fingerprint256, 'the leaf is the first certificate of the file');
});

t.test('each failure has its code and names the file', async (t) => {
  const notPem = join(dir, 'not-pem.crt');
  await writeFile(notPem, 'hello\n');
  const emptyRoots = join(dir, 'empty-roots');
  await mkdir(emptyRoots);
  const refusals: Array<[string, Partial<CertificatePaths>, string, string]> = [
    ['a missing certificate file', { certFile: join(dir, 'missing.crt') }, 'SVCDB_ERR_CERT_FILE_UNREADABLE', join(dir, 'missing.crt')],
    ['a directory where the key file should be', { privateKeyFile: dir }, 'SVCDB_ERR_CERT_FILE_UNREADABLE', dir],
    ['a missing roots path', { trustedRootsPath: join(dir, 'no-roots') }, 'SVCDB_ERR_CERT_FILE_UNREADABLE', join(dir, 'no-roots')],
    ['a certificate file without PEM', { certFile: notPem }, 'SVCDB_ERR_CERT_INVALID', notPem],
    ['a key file that is a certificate', { privateKeyFile: set.node.certFile }, 'SVCDB_ERR_CERT_KEY_INVALID', set.node.certFile],
    ['a key of another certificate', { privateKeyFile: set.strayKeyFile }, 'SVCDB_ERR_CERT_KEY_MISMATCH', set.strayKeyFile],
    ['an expired certificate', { certFile: set.expiredNode.certFile, privateKeyFile: set.expiredNode.keyFile },
      'SVCDB_ERR_CERT_VALIDITY_PERIOD', set.expiredNode.certFile],
    ['a certificate of another CA', { certFile: set.nextNode.certFile, privateKeyFile: set.nextNode.keyFile },
      'SVCDB_ERR_CERT_UNTRUSTED', set.nextNode.certFile],
    ['a roots directory without certificate files', { trustedRootsPath: emptyRoots }, 'SVCDB_ERR_CERT_NO_TRUSTED_ROOTS', emptyRoots],
  ];
  for (const [name, paths, code, file] of refusals) {
    await t.rejects(loadCertificates({ ...nodePaths, ...paths }), { code, message: new RegExp(escape(file)) }, name);
  }
});

t.test('a chain whose intermediate is missing from the file is not trusted', async (t) => {
  const leafOnly = join(dir, 'leaf-only.crt');
  const [leaf] = (await readFile(set.chainedNode.certFile, 'utf8')).split(/(?<=-----END CERTIFICATE-----\n)/);
  await writeFile(leafOnly, leaf);
  await t.rejects(loadCertificates({ certFile: leafOnly, privateKeyFile: set.chainedNode.keyFile, trustedRootsPath: set.root.certFile }), {
    code: 'SVCDB_ERR_CERT_UNTRUSTED', message: /svcdb test intermediate.*neither an intermediate in the file nor a trusted root/,
  });
});

t.test('a certificate is checked against the clock it is given', async (t) => {
  const nextYear = new Date(Date.now() + 365 * 24 * 3600 * 1000);
  await t.rejects(loadCertificates(nodePaths, nextYear), { code: 'SVCDB_ERR_CERT_VALIDITY_PERIOD', message: /expired on/ });
  const lastYear = new Date(Date.now() - 365 * 24 * 3600 * 1000);
  await t.rejects(loadCertificates(nodePaths, lastYear), { code: 'SVCDB_ERR_CERT_VALIDITY_PERIOD', message: /not valid before/ });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
