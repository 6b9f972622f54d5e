// `svcdb serve --print-config` through the real CLI: the effective configuration after flag,
// SVC_* variable, config file and default, as a config file that loads back to the same values,
// printed without opening (or creating) the database.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { loadOptions } from '../../src/common/options/load.js';
import { runCli } from '../helpers/cli.js';

t.test('--print-config prints every value with its source, and the output loads back to the same options', async (t) => {
  const dir = t.testdir({
    'svcdb.yaml': 'ChunkSize: 1048576\nHttpPort: 3000\nLogLevel: warn\n',
    'admin-password': 'from-a-file\n',
  });
  const file = join(dir, 'svcdb.yaml');
  const args = ['serve', '--print-config', '--config', file, '--db', join(dir, 'data', 'db'), '--http-port', '4000',
    '--default-admin-password-file', join(dir, 'admin-password')];
  const env = { SVC_LOG_LEVEL: 'debug', SVC_RUN_PROJECTIONS: 'System' };
  const printed = await runCli(args, { env, cwd: dir });
  t.equal(printed.code, 0, printed.stderr);
  t.equal(printed.stderr, '');
  t.notOk(existsSync(join(dir, 'data')), 'the database was not opened or created');
  t.match(printed.stdout, /^HttpPort: 4000 {2}# --http-port$/m, 'a flag wins over the file');
  t.match(printed.stdout, /^LogLevel: debug {2}# SVC_LOG_LEVEL$/m, 'the environment wins over the file');
  t.match(printed.stdout, /^ChunkSize: 1048576 {2}# the config file$/m, 'the file wins over the default');
  t.match(printed.stdout, /^VerifyChunks: background {2}# default$/m);
  t.match(printed.stdout, /^Index: .*\/data\/index {2}# default$/m, 'derived defaults are resolved');
  t.match(printed.stdout, /^# DefaultAdminPassword: not shown/m);
  t.notMatch(printed.stdout, /from-a-file|changeit/, 'secrets are never printed');
  t.notMatch(printed.stdout, /^Config:/m, 'the config file\'s own path is not a config key');

  const expected = loadOptions({ flags: { config: file, db: join(dir, 'data', 'db'), httpPort: 4000, defaultAdminPasswordFile: join(dir, 'admin-password') }, env, cwd: dir });
  const reloadedFile = join(dir, 'printed.yaml');
  writeFileSync(reloadedFile, printed.stdout);
  const reloaded = loadOptions({ flags: { config: reloadedFile }, env: {}, cwd: '/' });
  t.same({ ...reloaded.values, config: '' }, { ...expected.values, config: '' }, 'the same values, the password file read again');
  t.equal(reloaded.values.defaultAdminPassword, 'from-a-file');
  t.equal(readFileSync(reloadedFile, 'utf8'), printed.stdout);
});

t.test('--print-config checks the options like a start: a bad value is exit 2 and prints no configuration', async (t) => {
  const printed = await runCli(['serve', '--print-config', '--http-port', '70000'], { cwd: t.testdir() });
  t.equal(printed.code, 2);
  t.equal(printed.stdout, '');
  t.match(printed.stderr, /--http-port/);
});
