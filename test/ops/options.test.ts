// The option system: one schema, three forms (flag, SVC_* variable, PascalCase key of the
// --config file), precedence flag > environment > file > default, and start-up errors that
// name the option and the fix.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import Serve from '../../src/commands/serve.js';
import { configKey, environmentVariable, flagName } from '../../src/common/options/definition.js';
import { loadOptions, type OptionInputs } from '../../src/common/options/load.js';
import { optionKeys, optionSchema } from '../../src/common/options/schema.js';
import { engineOptionsOf } from '../../src/daemon/options.js';
import { hintFor } from '../../src/cli/hints.js';
import { runCli } from '../helpers/cli.js';

function load(dir: string, inputs: Partial<OptionInputs> = {}) {
  return loadOptions({ flags: {}, env: {}, cwd: dir, ...inputs });
}

function writeConfig(dir: string, yaml: string): string {
  const file = join(dir, 'svcdb.yaml');
  writeFileSync(file, yaml);
  return file;
}

t.test('each option has one name in three forms, and serve has a flag for each', async (t) => {
  t.same(flagName('scavengeHashUsersCacheCapacity'), 'scavenge-hash-users-cache-capacity');
  t.same(configKey('scavengeHashUsersCacheCapacity'), 'ScavengeHashUsersCacheCapacity');
  t.same(environmentVariable('scavengeHashUsersCacheCapacity'), 'SVC_SCAVENGE_HASH_USERS_CACHE_CAPACITY');
  for (const form of [flagName, configKey, environmentVariable]) {
    const names = optionKeys.map(form);
    t.equal(new Set(names).size, names.length, `${form.name}: no two options share a name`);
  }
  // --print-config is the one flag that is not an option: it prints the options instead of serving.
  const serveFlags = Object.keys(Serve.flags).filter((name) => name !== 'json' && name !== 'print-config').sort();
  t.same(serveFlags, optionKeys.map(flagName).sort(), 'serve declares exactly the schema\'s flags, and --print-config');
  for (const key of optionKeys) {
    const flag = Serve.flags[flagName(key)];
    t.equal(flag.default, undefined, `--${flagName(key)}: no oclif default (the loader applies it)`);
    t.equal(flag.env, undefined, `--${flagName(key)}: no oclif env (the loader reads it)`);
    t.match(flag.description, environmentVariable(key), `--${flagName(key)}: help names the variable`);
  }
});

t.test('defaults apply when nothing is given', async (t) => {
  const dir = t.testdir();
  const { values, sources, warnings } = load(dir);
  t.ok(Object.values(sources).every((source) => source === 'default'), 'every source is default');
  t.same(warnings, []);
  t.equal(values.db, join(dir, 'data/db'), 'relative paths resolve against the working directory');
  t.equal(values.index, join(dir, 'data/index'), 'the index defaults to <db>/../index');
  t.equal(values.config, '');
  t.equal(values.logLevel, 'info');
  // The reference's scavenge options exist with its defaults, even before scavenge uses them.
  t.match(values, {
    disableScavengeMerging: false,
    scavengeHistoryMaxAge: 30,
    alwaysKeepScavenged: false,
    scavengeBackendPageSize: 16,
    scavengeBackendCacheSize: 64 * 1024 * 1024,
    scavengeHashUsersCacheCapacity: 100_000,
    enableUnixSocket: false,
  });
  t.ok(Object.isFrozen(values), 'frozen');
});

t.test('a flag wins over the environment, which wins over the file, which wins over the default', async (t) => {
  const dir = t.testdir();
  const config = writeConfig(dir, 'HttpPort: 1111\nLogLevel: debug\nMaxMemTableSize: 5000\nDisableScavengeMerging: true\n');
  const env = { SVC_CONFIG: config, SVC_HTTP_PORT: '2222', SVC_LOG_LEVEL: 'warn' };
  const fileOnly = load(dir, { env: { SVC_CONFIG: config } });
  t.equal(fileOnly.values.httpPort, 1111);
  t.equal(fileOnly.sources.httpPort, 'file');
  t.equal(fileOnly.values.disableScavengeMerging, true, 'YAML booleans');

  const withEnvironment = load(dir, { env });
  t.equal(withEnvironment.values.httpPort, 2222);
  t.equal(withEnvironment.sources.httpPort, 'environment');
  t.equal(withEnvironment.values.logLevel, 'warn');
  t.equal(withEnvironment.values.maxMemTableSize, 5000, 'the file still supplies what the environment does not');
  t.equal(withEnvironment.sources.maxMemTableSize, 'file');
  t.equal(withEnvironment.sources.config, 'environment');

  const withFlag = load(dir, { env, flags: { httpPort: '3333' } });
  t.equal(withFlag.values.httpPort, 3333);
  t.equal(withFlag.sources.httpPort, 'flag');
  t.equal(withFlag.values.logLevel, 'warn');
  t.equal(withFlag.sources.chunkSize, 'default');

  const otherFile = writeConfig(t.testdir(), 'HttpPort: 4444\n');
  t.equal(load(dir, { env, flags: { config: otherFile } }).sources.httpPort, 'environment',
    '--config over SVC_CONFIG picks the file; the environment still wins over it');
  t.equal(load(dir, { flags: { config: otherFile } }).values.httpPort, 4444);
});

t.test('engine tuning options reach the engine', async (t) => {
  const dir = t.testdir();
  const { values } = load(dir, {
    flags: { chunkSize: '1048576', maxMemTableSize: '100', streamExistenceFilterSize: '0', cachedChunks: '3', verifyChunks: 'BLOCKING' },
  });
  t.match(engineOptionsOf(values), {
    dbPath: join(dir, 'data/db'), indexPath: join(dir, 'data/index'), chunkSizeBytes: 1_048_576, memTableEntriesMax: 100,
    existenceFilterSizeBytes: 0, cachedChunksMax: 3, verifyChunks: 'blocking', streamInfoCacheCapacity: 100_000,
    recentEventIdsMax: 100_000,
  });
});

t.test('a bad value stops the start, naming the option in the form it was given', async (t) => {
  const dir = t.testdir();
  const invalid = (inputs: Partial<OptionInputs>, option: string, message: RegExp, name: string) =>
    t.throws(() => load(dir, inputs), { code: 'SVCDB_ERR_OPTION_INVALID', details: { option }, message }, name);
  invalid({ flags: { httpPort: 'eighty' } }, '--http-port', /--http-port must be an integer from 0 to 65535/, 'not a number');
  invalid({ env: { SVC_HTTP_PORT: '70000' } }, '--http-port', /SVC_HTTP_PORT \("70000"\)/, 'out of range, from the environment');
  invalid({ env: { SVC_CHUNK_SIZE: '1.5' } }, '--chunk-size', /SVC_CHUNK_SIZE/, 'not an integer');
  invalid({ flags: { logLevel: 'loud' } }, '--log-level', /one of fatal, error, warn, info, debug, trace, silent/, 'not an allowed value');
  invalid({ env: { SVC_INSECURE: 'maybe' } }, '--insecure', /true or false/, 'not a boolean');
  invalid({ flags: { httpIp: 'localhost' } }, '--http-ip', /IPv4 or IPv6/, 'not an address');
  invalid({ flags: { streamExistenceFilterSize: '100' } }, '--stream-existence-filter-size', /0 \(no filter\) or at least 4096/, 'a rule beyond the range');
  invalid({ flags: { db: '  ' } }, '--db', /must not be empty/, 'an empty path');
  const config = writeConfig(dir, 'ScavengeHistoryMaxAge: 0\n');
  invalid({ flags: { config } }, '--scavenge-history-max-age', new RegExp(`ScavengeHistoryMaxAge in ${config}`), 'from the file');
  const list = writeConfig(dir, 'HttpPort: [1, 2]\n');
  invalid({ flags: { config: list } }, '--http-port', /single value/, 'a list in the file');
});

t.test('the config file: unknown keys, bad files and keys it may not hold', async (t) => {
  const dir = t.testdir();
  const typo = writeConfig(dir, 'HttpPrt: 2113\n');
  t.throws(() => load(dir, { flags: { config: typo } }), {
    code: 'SVCDB_ERR_OPTION_UNKNOWN', details: { option: 'HttpPrt', file: typo }, message: /did you mean HttpPort\?/,
  }, 'an unknown key names the nearest option');
  const kebab = writeConfig(dir, 'http-port: 2113\n');
  t.throws(() => load(dir, { flags: { config: kebab } }), { code: 'SVCDB_ERR_OPTION_UNKNOWN', message: /HttpPort/ }, 'a flag name in the file');
  const nested = writeConfig(dir, 'Config: other.yaml\n');
  t.throws(() => load(dir, { flags: { config: nested } }), { code: 'SVCDB_ERR_OPTION_UNKNOWN', message: /--config or SVC_CONFIG/ });
  t.throws(() => load(dir, { flags: { config: join(dir, 'missing.yaml') } }), { code: 'SVCDB_ERR_OPTION_CONFIG_FILE', message: /does not exist/ });
  const broken = writeConfig(dir, 'HttpPort: [1\n');
  t.throws(() => load(dir, { flags: { config: broken } }), { code: 'SVCDB_ERR_OPTION_CONFIG_FILE', message: /not valid YAML/ });
  const scalar = writeConfig(dir, '2113\n');
  t.throws(() => load(dir, { flags: { config: scalar } }), { code: 'SVCDB_ERR_OPTION_CONFIG_FILE', message: /mapping/ });
  const empty = writeConfig(dir, '# nothing set\n');
  t.equal(load(dir, { flags: { config: empty } }).sources.httpPort, 'default', 'an empty file sets nothing');
  const relative = writeConfig(dir, 'Db: relative/db\n');
  t.equal(load(dir, { flags: { config: relative } }).values.db, join(dir, 'relative/db'), 'paths in the file resolve against the working directory');
});

t.test('conflicting pairs stop the start, naming both options', async (t) => {
  const dir = t.testdir();
  t.throws(() => load(dir, { flags: { db: 'x', index: 'x' } }), {
    code: 'SVCDB_ERR_OPTION_CONFLICT', details: { options: ['--index', '--db'] },
  });
  t.throws(() => load(dir, { env: { SVC_HTTP_IP: '0.0.0.0' } }), {
    code: 'SVCDB_ERR_OPTION_CONFLICT', details: { options: ['--http-ip', '--insecure'] }, message: /--insecure/,
  }, 'a non-loopback address over plain HTTP needs --insecure');
  t.equal(load(dir, { flags: { httpIp: '0.0.0.0', insecure: true } }).values.httpIp, '0.0.0.0');
  t.equal(load(dir, { flags: { httpIp: '::1' } }).values.httpIp, '::1', 'IPv6 loopback is fine');
  // Regression: this said the options "conflict" although --cert-file was not given at all.
  t.throws(() => load(dir, { env: { SVC_ENABLE_TRUSTED_AUTH: 'true' } }), {
    code: 'SVCDB_ERR_OPTION_REQUIRES', details: { option: '--enable-trusted-auth', requires: ['--cert-file', '--cert-private-key-file'] },
    message: /^option --enable-trusted-auth requires --cert-file and --cert-private-key-file: .*TLS/,
  }, 'trusted auth needs TLS');
  t.match(hintFor('SVCDB_ERR_OPTION_REQUIRES'), /Add the options/, 'the hint says to add them');
  t.equal(load(dir, { flags: { enableTrustedAuth: true, certFile: 'node.crt', certPrivateKeyFile: 'node.key' } }).values.enableTrustedAuth, true);
});

t.test('deprecated options are accepted with a warning, unknown SVC_* variables warn', async (t) => {
  const dir = t.testdir();
  for (const inputs of [{ flags: { alwaysKeepScavenged: true } }, { env: { SVC_ALWAYS_KEEP_SCAVENGED: 'true' } }]) {
    const loaded = load(dir, inputs);
    t.equal(loaded.values.alwaysKeepScavenged, true);
    t.match(loaded.warnings, [{ option: '--always-keep-scavenged', message: /deprecated/ }]);
  }
  const loaded = load(dir, { env: { SVC_HTTP_PROT: '1', PATH: '/bin' } });
  t.match(loaded.warnings, [{ option: 'SVC_HTTP_PROT', message: /did you mean SVC_HTTP_PORT\?/ }]);
});

t.test('svcdb serve: a config file mistake exits 2 before anything is opened', async (t) => {
  const dir = t.testdir();
  const config = writeConfig(dir, 'HttpPort: 0\nLogLevel: shouty\n');
  const exit = await runCli(['serve', '--config', config, '--db', join(dir, 'db')]);
  t.equal(exit.code, 2);
  t.match(exit.stderr, /SVCDB_ERR_OPTION_INVALID/);
  t.match(exit.stderr, /LogLevel in .*svcdb\.yaml/);
  t.notMatch(exit.stderr, /^\s+at /m, 'no stack trace');
});

t.test('every option is documented with a group and a description', async (t) => {
  for (const key of optionKeys) {
    const definition = optionSchema[key];
    t.ok(definition.description.length > 10, `${key} has a description`);
    t.ok(definition.group, `${key} has a group`);
  }
});
