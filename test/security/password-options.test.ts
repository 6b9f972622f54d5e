// Passwords never show in --help or the man pages, not even the well-known first one, and every
// password can come from a file or the environment instead of the command line, where any user
// of the machine can read it: serve's default users and cert-reload's credentials.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { loadOptions } from '../../src/common/options/load.js';
import { basicAuth } from '../helpers/auth.js';
import { repositoryRoot, runCli, startServer } from '../helpers/cli.js';

function writeSecret(dir: string, name: string, content: string): string {
  const file = join(dir, name);
  writeFileSync(file, content, { mode: 0o600 });
  return file;
}

t.test('--help and the man pages show no password default', async (t) => {
  const serve = await runCli(['serve', '--help']);
  t.equal(serve.code, 0, serve.stderr);
  t.notMatch(serve.stdout, /default:? changeit/i, 'serve --help displays no changeit default');
  t.match(serve.stdout, /--default-admin-password-file/, 'serve --help offers the password files');
  const reload = await runCli(['cert-reload', '--help']);
  t.equal(reload.code, 0, reload.stderr);
  const passwordLine = reload.stdout.split('\n').find((line) => line.includes('--password=')) ?? '';
  t.match(passwordLine, /--password=PASSWORD/, 'cert-reload --help lists --password');
  t.notMatch(passwordLine, /default/, 'with no displayed default');
  t.notMatch(reload.stdout, /default: changeit/, 'changeit is nowhere a displayed default');
  for (const page of ['svcdb-serve.1', 'svcdb-cert-reload.1']) {
    const content = readFileSync(join(repositoryRoot, 'man', page), 'utf8');
    t.notMatch(content, /Default:? changeit/i, `man/${page} displays no changeit default`);
  }
});

t.test('the loader reads a default user\'s password from its file, flag or variable', async (t) => {
  const dir = t.testdir();
  const admin = writeSecret(dir, 'admin.pw', 'from-file\n');
  const ops = writeSecret(dir, 'ops.pw', 'ops-from-file\r\n');
  const loaded = loadOptions({
    flags: { defaultAdminPasswordFile: admin }, env: { SVC_DEFAULT_OPS_PASSWORD_FILE: ops }, cwd: dir,
  });
  t.equal(loaded.values.defaultAdminPassword, 'from-file', 'the file\'s content without its line break');
  t.equal(loaded.values.defaultOpsPassword, 'ops-from-file', 'SVC_DEFAULT_OPS_PASSWORD_FILE works as well');
  t.equal(loaded.sources.defaultAdminPassword, 'flag');
  t.equal(loaded.sources.defaultOpsPassword, 'environment');

  const flagWins = loadOptions({ flags: { defaultAdminPassword: 'typed' }, env: { SVC_DEFAULT_ADMIN_PASSWORD_FILE: admin }, cwd: dir });
  t.equal(flagWins.values.defaultAdminPassword, 'typed', 'a flag wins over a variable, as for every option');

  t.throws(() => loadOptions({ flags: { defaultAdminPassword: 'typed', defaultAdminPasswordFile: admin }, env: {}, cwd: dir }),
    { code: 'SVCDB_ERR_OPTION_CONFLICT' }, 'the password and its file as two flags conflict');
  t.throws(() => loadOptions({ flags: { defaultAdminPasswordFile: join(dir, 'missing.pw') }, env: {}, cwd: dir }),
    { code: 'SVCDB_ERR_OPTION_INVALID', message: /--default-admin-password-file names .*missing\.pw, which does not exist/ });
  t.throws(() => loadOptions({ flags: { defaultOpsPasswordFile: writeSecret(dir, 'empty.pw', '\n') }, env: {}, cwd: dir }),
    { code: 'SVCDB_ERR_OPTION_INVALID', message: /which is empty/ });
});

t.test('a node started with password files; cert-reload authenticates from a file or SVC_PASSWORD_FILE', async (t) => {
  const dir = t.testdir();
  const adminFile = writeSecret(dir, 'admin.pw', 's3cret admin\n');
  const opsFile = writeSecret(dir, 'ops.pw', 's3cret ops\n');
  const wrongFile = writeSecret(dir, 'wrong.pw', 'changeit\n');
  const node = await startServer(t, {
    dbPath: join(dir, 'db'),
    args: ['--default-admin-password-file', adminFile],
    env: { SVC_DEFAULT_OPS_PASSWORD_FILE: opsFile },
  });
  const status = async (login: string, password: string) =>
    (await fetch(`${node.url}/users/${login}`, { headers: { authorization: basicAuth(login, password) } })).status;
  t.equal(await status('admin', 's3cret admin'), 200, 'admin has the password of its file');
  t.equal(await status('admin', 'changeit'), 401, 'and not changeit');
  t.equal(await status('ops', 's3cret ops'), 200, 'ops has the password of SVC_DEFAULT_OPS_PASSWORD_FILE');
  t.notMatch(node.process.stdout, /s3cret/, 'the log never shows the passwords');

  const byFile = await runCli(['cert-reload', '--url', node.url, '--password-file', adminFile, '--json']);
  t.equal(byFile.code, 0, `--password-file authenticates: ${byFile.stdout}${byFile.stderr}`);
  const byVariable = await runCli(['cert-reload', '--url', node.url, '--username', 'ops', '--json'], { env: { SVC_PASSWORD_FILE: opsFile } });
  t.equal(byVariable.code, 0, `SVC_PASSWORD_FILE authenticates: ${byVariable.stdout}${byVariable.stderr}`);
  const wrong = await runCli(['cert-reload', '--url', node.url, '--password-file', wrongFile, '--json']);
  t.equal(wrong.code, 11, 'a wrong password from a file is refused with exit 11');
  t.equal((JSON.parse(wrong.stdout) as { error: { code: string } }).error.code, 'SVCDB_ERR_CLIENT_UNAUTHORIZED');
  const missing = await runCli(['cert-reload', '--url', node.url, '--password-file', join(dir, 'missing.pw'), '--json']);
  t.equal(missing.code, 2, 'a missing password file is a usage error');
  t.match(JSON.parse(missing.stdout), { error: { code: 'SVCDB_ERR_OPTION_INVALID', message: /--password-file names .*missing\.pw/ } });
  const both = await runCli(['cert-reload', '--url', node.url, '--password', 'x', '--password-file', adminFile]);
  t.equal(both.code, 2, '--password and --password-file exclude each other');
  t.match(both.stderr, /SVCDB_ERR_CLI_USAGE/);
});
