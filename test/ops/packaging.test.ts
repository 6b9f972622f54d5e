// What packaging/ ships: the systemd unit and the sample configuration name only options the node
// has, the sample is what the schema generates, and every query of the Grafana dashboard names a
// metric that a real node exports.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { PACKAGED_VALUES, sampleConfig } from '../../src/common/options/config-yaml.js';
import { configKey, environmentVariable } from '../../src/common/options/definition.js';
import { loadOptions } from '../../src/common/options/load.js';
import { optionKeys, optionSchema } from '../../src/common/options/schema.js';
import Serve from '../../src/commands/serve.js';
import { cliPath, repositoryRoot } from '../helpers/cli.js';
import { scrape, startMetricsNode } from '../helpers/metrics.js';

const packaging = join(repositoryRoot, 'packaging');
const unitText = readFileSync(join(packaging, 'svcdb.service'), 'utf8');
const sampleFile = join(packaging, 'svcdb.yaml');

/** `Key=value` lines of the unit by key; a key given more than once keeps every value. */
function unitDirectives(text: string): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (match) directives.set(match[1], [...(directives.get(match[1]) ?? []), match[2]]);
  }
  return directives;
}

t.test('the committed sample configuration is what the schema generates (npm run sample-config)', async (t) => {
  t.equal(readFileSync(sampleFile, 'utf8'), sampleConfig());
});

t.test('the sample names every option a config file takes, and nothing else', async (t) => {
  const named = [...readFileSync(sampleFile, 'utf8').matchAll(/^#?([A-Z][A-Za-z]+):/gm)].map((match) => match[1]);
  const fileKeys = optionKeys.filter((key) => !optionSchema[key].notInConfigFile).map(configKey);
  t.same(named, fileKeys);
  const loaded = loadOptions({ flags: { config: sampleFile }, env: {}, cwd: '/' });
  t.equal(loaded.values.db, PACKAGED_VALUES.db, 'it loads, with absolute data paths');
  t.equal(loaded.values.index, PACKAGED_VALUES.index);
  t.equal(loaded.values.httpPort, optionSchema.httpPort.default, 'everything else at its default');
});

t.test('the unit is hardened, runs serve with options it has, and may write the sample\'s data paths', async (t) => {
  const unit = unitDirectives(unitText);
  const one = (key: string) => unit.get(key)?.[0];
  t.match(one('User'), /^svcdb$/, 'its own user');
  for (const [key, value] of Object.entries({
    NoNewPrivileges: 'yes', PrivateTmp: 'yes', ProtectSystem: 'strict', ProtectHome: 'yes', Restart: 'on-failure', CapabilityBoundingSet: '',
  })) t.equal(one(key), value, key);
  t.ok(Number(one('LimitNOFILE')) >= 65_536, 'LimitNOFILE');
  const [command, subcommand, ...args] = (one('ExecStart') ?? '').split(/\s+/);
  t.match(command, /^\/.*\/svcdb$/, 'an absolute path to svcdb');
  t.equal(subcommand, 'serve');
  const serveFlags = new Set(Object.keys(Serve.flags));
  for (const flag of args.filter((arg) => arg.startsWith('--'))) t.ok(serveFlags.has(flag.slice(2)), `${flag} is a serve flag`);
  t.equal(args[args.indexOf('--config') + 1], '/etc/svcdb/svcdb.yaml');
  const variables = new Set(optionKeys.map(environmentVariable));
  for (const environment of unit.get('Environment') ?? []) {
    for (const name of environment.matchAll(/(SVC_[A-Z_]+)=/g)) t.ok(variables.has(name[1]), `${name[1]} is an option`);
  }
  const writable = (one('ReadWritePaths') ?? '').split(/\s+/);
  for (const path of [PACKAGED_VALUES.db, PACKAGED_VALUES.index, one('WorkingDirectory')]) {
    t.ok(path?.startsWith('/') && writable.some((root) => path.startsWith(`${root}/`) || path === root), `${path} is absolute and writable`);
  }
});

// .ci/run installs systemd for systemd-analyze (README: what the tests need).
t.test('systemd knows every directive of the unit', async (t) => {
  // verify needs the command to exist and man to know the Documentation= page: point both here.
  const copy = join(t.testdir(), 'svcdb.service');
  writeFileSync(copy, unitText.replace(/^ExecStart=\S+/m, `ExecStart=${cliPath}`).replace(/^Documentation=.*\n/m, ''));
  let output: string;
  try {
    output = execFileSync('systemd-analyze', ['verify', copy], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    // A verify that finds problems exits non-zero; a missing command is a failure of the test itself.
    const { status, stderr } = error as { status?: number | null; stderr?: string };
    if (typeof status !== 'number') throw error;
    output = stderr ?? '';
  }
  t.notMatch(output, /Unknown|Invalid|Failed to parse|ignoring/i, output);
});

/** Words of PromQL that are not metric names: functions, aggregations, keywords. */
const PROMQL_WORDS = new Set(['sum', 'count', 'avg', 'min', 'max', 'rate', 'increase', 'irate', 'histogram_quantile', 'time', 'by', 'without', 'on', 'ignoring', 'and', 'or', 'unless']);

/** The metric names an expression selects: label matchers, ranges and grouping labels left out. */
function metricNames(expression: string): string[] {
  const bare = expression.replace(/\{[^}]*\}/g, ' ').replace(/\[[^\]]*\]/g, ' ').replace(/\b(by|without)\s*\([^)]*\)/g, ' ');
  return [...bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)].map((match) => match[0]).filter((word) => !PROMQL_WORDS.has(word));
}

t.test('every query of the Grafana dashboard names metrics a real node exports', async (t) => {
  const dashboard = JSON.parse(readFileSync(join(packaging, 'grafana-dashboard.json'), 'utf8')) as {
    panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
    templating: { list: Array<{ definition?: string }> };
  };
  const url = await startMetricsNode(t);
  const families = await scrape(url);
  const exported = (name: string) => families.has(name)
    || families.get(name.replace(/_(bucket|count|sum)$/, ''))?.type === 'HISTOGRAM';
  const expressions = [
    ...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ where: panel.title, expression: target.expr }))),
    ...dashboard.templating.list.filter((variable) => variable.definition).map((variable) => ({ where: 'a variable', expression: variable.definition!.replace(/^label_values\(([^,]+),.*$/, '$1') })),
  ];
  t.ok(expressions.length >= 30, `${expressions.length} queries`);
  for (const { where, expression } of expressions) {
    const names = metricNames(expression);
    t.ok(names.length > 0, `${where}: ${expression} names a metric`);
    for (const name of names) t.ok(exported(name), `${where}: ${name} is exported`);
  }
});
