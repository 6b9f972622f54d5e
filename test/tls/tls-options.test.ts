// The certificate options: a certificate and its key come together, trusted roots need a
// certificate, and TLS is what lets a node bind an address other than loopback without --insecure.
import { join } from 'node:path';
import t from 'tap';
import { loadOptions, type OptionInputs } from '../../src/common/options/load.js';

function load(dir: string, inputs: Partial<OptionInputs> = {}) {
  return loadOptions({ flags: {}, env: {}, cwd: dir, ...inputs });
}

t.test('a certificate without its key, or a key without its certificate, names both options', async (t) => {
  const dir = t.testdir();
  const conflict = { code: 'SVCDB_ERR_OPTION_CONFLICT', details: { options: ['--cert-file', '--cert-private-key-file'] } };
  t.throws(() => load(dir, { flags: { certFile: 'node.crt' } }), { ...conflict, message: /--cert-private-key-file is not/ });
  t.throws(() => load(dir, { env: { SVC_CERT_PRIVATE_KEY_FILE: 'node.key' } }), { ...conflict, message: /--cert-file is not/ });
});

t.test('trusted roots without a certificate are refused', async (t) => {
  const dir = t.testdir();
  t.throws(() => load(dir, { flags: { trustedRootCertificatesPath: 'roots' } }), {
    code: 'SVCDB_ERR_OPTION_CONFLICT', details: { options: ['--trusted-root-certificates-path', '--cert-file'] },
  });
});

t.test('certificate paths resolve against the working directory and are unset by default', async (t) => {
  const dir = t.testdir();
  t.match(load(dir).values, { certFile: '', certPrivateKeyFile: '', trustedRootCertificatesPath: '' });
  const { values, sources } = load(dir, {
    flags: { certFile: 'tls/node.crt', certPrivateKeyFile: 'tls/node.key' },
    env: { SVC_TRUSTED_ROOT_CERTIFICATES_PATH: '/etc/svcdb/ca' },
  });
  t.match(values, { certFile: join(dir, 'tls/node.crt'), certPrivateKeyFile: join(dir, 'tls/node.key'), trustedRootCertificatesPath: '/etc/svcdb/ca' });
  t.equal(sources.trustedRootCertificatesPath, 'environment');
});

t.test('a non-loopback address needs TLS or --insecure', async (t) => {
  const dir = t.testdir();
  t.throws(() => load(dir, { flags: { httpIp: '0.0.0.0' } }), {
    code: 'SVCDB_ERR_OPTION_CONFLICT', details: { options: ['--http-ip', '--insecure'] }, message: /--cert-file and --cert-private-key-file/,
  }, 'plain HTTP on 0.0.0.0 is still refused');
  const tls = load(dir, { flags: { httpIp: '0.0.0.0', certFile: 'node.crt', certPrivateKeyFile: 'node.key' } });
  t.equal(tls.values.httpIp, '0.0.0.0', 'with a certificate and key it is accepted');
  t.equal(tls.values.insecure, false);
});
