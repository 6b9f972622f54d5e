// A wrong command line, for every command: exit code 2, one line on stderr that names the problem
// and the command's --help, and with --json the same {"error":{...}} object on stdout as any other
// failure of the command, with nothing of oclif's internals and no stack trace.
import { Config } from '@oclif/core';
import t, { type Test } from 'tap';
import { repositoryRoot, runCli, type CliExit } from '../helpers/cli.js';

interface UsageCase {
  /** The command line after `svcdb`. */
  args: string[];
  /** What the one stderr line must say about the problem. */
  problem: RegExp;
  /** Code of the error; the option loader of serve has its own for a bad value. */
  code?: string;
  /** The help the hint points at. */
  help: string;
}

const cases: Record<string, UsageCase[]> = {
  serve: [
    { args: ['serve', '--bogus'], problem: /unknown flag --bogus/, help: 'svcdb serve --help' },
    { args: ['serve', 'extra'], problem: /unexpected argument extra/, help: 'svcdb serve --help' },
    { args: ['serve', '--http-port', '1', '--http-port', '2'], problem: /--http-port can only be specified once/, help: 'svcdb serve --help' },
    { args: ['serve', '--http-port', 'abc'], problem: /--http-port must be an integer/, code: 'SVCDB_ERR_OPTION_INVALID', help: 'svcdb serve --help' },
  ],
  backup: [
    { args: ['backup', '--bogus'], problem: /unknown flag --bogus/, help: 'svcdb backup --help' },
    { args: ['backup', 'one', 'two'], problem: /unexpected argument two/, help: 'svcdb backup --help' },
    { args: ['backup', '--archive', 'a.tar.gz', '--archive', 'b.tar.gz'], problem: /--archive can only be specified once/, help: 'svcdb backup --help' },
  ],
  'backup:verify': [
    { args: ['backup', 'verify'], problem: /missing argument SOURCE/, help: 'svcdb backup verify --help' },
    { args: ['backup', 'verify', 'one', 'two'], problem: /unexpected argument two/, help: 'svcdb backup verify --help' },
  ],
  restore: [
    { args: ['restore'], problem: /missing argument SOURCE/, help: 'svcdb restore --help' },
    { args: ['restore', 'one', '--db', 'a', '--db', 'b'], problem: /--db can only be specified once/, help: 'svcdb restore --help' },
  ],
  redact: [
    { args: ['redact', '--bogus'], problem: /unknown flag --bogus/, help: 'svcdb redact --help' },
    { args: ['redact', 'extra'], problem: /unexpected argument extra/, help: 'svcdb redact --help' },
  ],
  'cert-reload': [
    { args: ['cert-reload', '--bogus'], problem: /unknown flag --bogus/, help: 'svcdb cert-reload --help' },
    { args: ['cert-reload', '--timeout-seconds', 'abc'], problem: /--timeout-seconds: Expected an integer/, help: 'svcdb cert-reload --help' },
    { args: ['cert-reload', '--signal', '--url', 'http://127.0.0.1:1'], problem: /cannot also be provided/, help: 'svcdb cert-reload --help' },
  ],
  'scavenge:start': [
    { args: ['scavenge', 'start', '--bogus'], problem: /unknown flag --bogus/, help: 'svcdb scavenge start --help' },
    { args: ['scavenge', 'start', '--threads', '5'], problem: /--threads/, help: 'svcdb scavenge start --help' },
    { args: ['scavenge', 'start', '--password', 'x', '--password-file', '/tmp/x'], problem: /cannot also be provided/, help: 'svcdb scavenge start --help' },
  ],
  'scavenge:stop': [
    { args: ['scavenge', 'stop', '--bogus'], problem: /unknown flag --bogus/, help: 'svcdb scavenge stop --help' },
  ],
  'scavenge:status': [
    { args: ['scavenge', 'status', 'extra'], problem: /unexpected argument extra/, help: 'svcdb scavenge status --help' },
  ],
  'stream:append': [
    { args: ['stream', 'append'], problem: /missing argument STREAM/, help: 'svcdb stream append --help' },
    { args: ['stream', 'append', 's', '--data', '{}'], problem: /--type is required with --data/, help: 'svcdb stream append --help' },
  ],
  'stream:read': [
    { args: ['stream', 'read', 's', '--count', '0'], problem: /--count/, help: 'svcdb stream read --help' },
    { args: ['stream', 'read', 's', '--event-type-prefix', 'A', '--stream-prefix', 'b'], problem: /filters apply to \$all only/, help: 'svcdb stream read --help' },
  ],
  'stream:tail': [
    { args: ['stream', 'tail', 's', 'extra'], problem: /unexpected argument extra/, help: 'svcdb stream tail --help' },
  ],
  'stream:delete': [
    { args: ['stream', 'delete', 's', '--expected-version', 'x'], problem: /--expected-version: must be any, no-stream, exists or N/, code: 'SVCDB_ERR_OPTION_INVALID', help: 'svcdb stream delete --help' },
  ],
  status: [
    { args: ['status', 'extra'], problem: /unexpected argument extra/, help: 'svcdb status --help' },
  ],
  'user:add': [{ args: ['user', 'add'], problem: /missing argument LOGIN/, help: 'svcdb user add --help' }],
  'user:list': [{ args: ['user', 'list', 'extra'], problem: /unexpected argument extra/, help: 'svcdb user list --help' }],
  'user:passwd': [{ args: ['user', 'passwd', 'a', '--bogus'], problem: /unknown flag --bogus/, help: 'svcdb user passwd --help' }],
  'user:disable': [{ args: ['user', 'disable'], problem: /missing argument LOGIN/, help: 'svcdb user disable --help' }],
  'projection:create': [{ args: ['projection', 'create', 'p'], problem: /--file|--query/, help: 'svcdb projection create --help' }],
  'projection:list': [{ args: ['projection', 'list', 'extra'], problem: /unexpected argument extra/, help: 'svcdb projection list --help' }],
  'projection:state': [{ args: ['projection', 'state'], problem: /missing argument NAME/, help: 'svcdb projection state --help' }],
  'projection:reset': [{ args: ['projection', 'reset'], problem: /missing argument NAME/, help: 'svcdb projection reset --help' }],
  'subscription:create': [{ args: ['subscription', 'create', 's'], problem: /missing argument GROUP/, help: 'svcdb subscription create --help' }],
  'subscription:list': [{ args: ['subscription', 'list', 's', 'extra'], problem: /unexpected argument extra/, help: 'svcdb subscription list --help' }],
  'subscription:replay-parked': [{ args: ['subscription', 'replay-parked', 's'], problem: /missing argument GROUP/, help: 'svcdb subscription replay-parked --help' }],
};

const unknownCommands: UsageCase[] = [
  { args: ['nosuch'], problem: /unknown command nosuch/, help: 'svcdb --help' },
  { args: ['backp', '/backups/node1'], problem: /unknown command backp; did you mean svcdb backup\?/, help: 'svcdb --help' },
  { args: ['--bogus'], problem: /unknown flag --bogus before any command/, help: 'svcdb --help' },
  { args: ['backup', 'verfy', 'x'], problem: /unknown command svcdb backup verfy; did you mean svcdb backup verify\?/, help: 'svcdb backup --help' },
  { args: ['scavenge', 'strat'], problem: /unknown command scavenge strat; did you mean svcdb scavenge start\?/, help: 'svcdb scavenge --help' },
];

const errorKeys = ['code', 'details', 'exitCode', 'hint', 'message'];

function checkPlain(t: Test, usage: UsageCase, exit: CliExit): void {
  const code = usage.code ?? 'SVCDB_ERR_CLI_USAGE';
  t.equal(exit.code, 2, 'exit code 2');
  const lines = exit.stderr.split('\n').filter((line) => line.trim() !== '');
  t.equal(lines.length, 1, `one line on stderr:\n${exit.stderr}`);
  t.match(lines[0], usage.problem, 'the line names the problem');
  t.ok(lines[0]?.includes(`(${code})`), `the line carries ${code}`);
  t.ok(lines[0]?.includes(`Hint: See ${usage.help}`), `the hint points at ${usage.help}`);
  t.equal(exit.stdout, '', 'nothing on stdout');
}

function checkJson(t: Test, usage: UsageCase, exit: CliExit): void {
  t.equal(exit.code, 2, 'exit code 2');
  t.equal(exit.stderr, '', 'nothing on stderr');
  let output: { error?: Record<string, unknown> } = {};
  t.doesNotThrow(() => {
    output = JSON.parse(exit.stdout) as typeof output;
  }, `stdout is one JSON document:\n${exit.stdout}`);
  t.same(Object.keys(output), ['error'], 'one top-level key, error');
  const error = output.error ?? {};
  t.same(Object.keys(error).sort(), errorKeys, 'the error object of every failed command');
  t.equal(error.code, usage.code ?? 'SVCDB_ERR_CLI_USAGE');
  t.equal(error.exitCode, 2);
  t.match(String(error.message), usage.problem, 'the message names the problem');
  t.ok(String(error.hint).includes(usage.help), `the hint points at ${usage.help}`);
  t.notMatch(exit.stdout, /"oclif"|"parse"|"stack"|\bat .+:\d+:\d+/, 'no parser internals or stack');
}

/** Runs each command line with at most two processes at a time (the machine has two cores). */
async function runAll(argsList: string[][]): Promise<CliExit[]> {
  const results: CliExit[] = new Array(argsList.length);
  let next = 0;
  const worker = async () => {
    while (next < argsList.length) {
      const index = next++;
      results[index] = await runCli(argsList[index], { cwd: t.testdirName });
    }
  };
  await Promise.all([worker(), worker()]);
  return results;
}

t.testdir({ 'not-a-backup': {} });

t.test('the cases cover every command svcdb has', async (t) => {
  const config = await Config.load(repositoryRoot);
  // The commands of svcdb itself; those of oclif's plugins (help, autocomplete) parse their own.
  const own = config.commands.filter((command) => command.pluginName === config.pjson.name).map((command) => command.id);
  t.same(Object.keys(cases).sort(), own.sort(), 'one group of cases per command');
});

const groups = [...Object.entries(cases), ['(no command)', unknownCommands] as const];
for (const [command, usages] of groups) {
  t.test(`${command}: a wrong command line exits 2 with one line, or with --json the error object`, async (t) => {
    const plain = await runAll(usages.map((usage) => usage.args));
    const json = await runAll(usages.map((usage) => [...usage.args, '--json']));
    usages.forEach((usage, index) => {
      t.test(`svcdb ${usage.args.join(' ')}`, async (t) => checkPlain(t, usage, plain[index]));
      t.test(`svcdb ${usage.args.join(' ')} --json`, async (t) => checkJson(t, usage, json[index]));
    });
  });
}

t.test('a usage error prints the same JSON shape as another failure of the command', async (t) => {
  const [usage, other] = await runAll([['backup', 'verify', '--json'], ['backup', 'verify', 'not-a-backup', '--json']]);
  t.equal(other.code, 8, `a folder that holds no backup is refused with exit 8: ${other.stdout}`);
  const shape = (exit: CliExit) => Object.keys((JSON.parse(exit.stdout) as { error: object }).error).sort();
  t.same(shape(usage), shape(other), 'the same keys under error');
});
