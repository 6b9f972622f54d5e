// The habits of a good command line, through the real CLI: help in every form, did-you-mean for
// mistyped commands, a mistyped subcommand refused before it is taken as an argument, NO_COLOR
// and --no-color, and shell completion.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { runCli } from '../helpers/cli.js';

const ESCAPE = String.fromCharCode(27);

t.test('help: svcdb help, help COMMAND, -h and --help everywhere', async (t) => {
  const forms: [string[], string][] = [
    [['help'], 'svcdb [COMMAND]'], [['--help'], 'svcdb [COMMAND]'], [['-h'], 'svcdb [COMMAND]'],
    [['help', 'backup', 'verify'], 'svcdb backup verify SOURCE'], [['backup', 'verify', '-h'], 'svcdb backup verify SOURCE'],
    [['stream', 'append', '--help'], 'svcdb stream append STREAM'], [['stream', '-h'], 'svcdb stream COMMAND'],
    [['scavenge', 'start', '-h'], 'svcdb scavenge start'],
  ];
  for (const [args, usage] of forms) {
    const exit = await runCli(args);
    t.equal(exit.code, ExitCode.success, `svcdb ${args.join(' ')} exits 0: ${exit.stderr}`);
    t.ok(exit.stdout.includes(usage), `svcdb ${args.join(' ')} shows ${usage}`);
  }
});

t.test('--help is short: each flag once, grouped, no second block of flag descriptions', async (t) => {
  const serve = await runCli(['serve', '--help']);
  t.equal(serve.code, ExitCode.success);
  t.notMatch(serve.stdout, /FLAG DESCRIPTIONS/);
  const flagsPart = serve.stdout.split('\nDESCRIPTION\n')[0];
  // A flag's own line is the flag, then its description after two spaces or on the next line
  // (`  -t, --type=TYPE  …`); a wrapped description line may begin with a flag's name too, but
  // then a single space or a full stop follows it.
  const flagLines = flagsPart.split('\n').filter((line) => /^ {2}(?:-\w, | {4})?--(?:\[no-\])?[a-z-]+(?:=\S+)?(?: {2,}\S.*)?$/.test(line));
  const names = flagLines.map((line) => /--(?:\[no-\])?([a-z-]+)/.exec(line)?.[1]);
  t.same(names.filter((name, index) => names.indexOf(name) !== index), [], 'no flag is listed twice');
  t.ok(names.includes('http-port'), 'the options are there');
  t.match(serve.stdout, /\n[A-Z]+ FLAGS\n/, 'flags are grouped under headings');
  // Every flag once with a short description: a second block of descriptions would double it.
  t.ok(serve.stdout.split('\n').length < 360, `serve --help has ${serve.stdout.split('\n').length} lines`);
  const append = await runCli(['stream', 'append', '--help']);
  t.match(append.stdout, /NODE FLAGS\n/, 'the node flags have their group');
  t.match(append.stdout, /-t, --type=TYPE/, 'short flags for the common ones');
});

t.test('mistyped commands get the nearest command', async (t) => {
  const cases: [string[], RegExp][] = [
    [['bakcup', '/backups/node1'], /unknown command bakcup; did you mean svcdb backup\?/],
    [['sevre'], /unknown command sevre; did you mean svcdb serve\?/],
    [['bakcup', 'verify', '/x'], /did you mean svcdb backup verify\?/],
    [['stream', 'apend', 's'], /unknown command stream apend; did you mean svcdb stream append\?/],
    [['scavenge', 'begin'], /unknown command scavenge begin .*its commands: start, status, stop/],
  ];
  for (const [args, message] of cases) {
    const exit = await runCli(args);
    t.equal(exit.code, ExitCode.usage, `svcdb ${args.join(' ')} exits 2`);
    t.match(exit.stderr, message);
  }
});

t.test('a mistyped subcommand is refused, never taken as an argument, and nothing is written', async (t) => {
  const cwd = t.testdir({});
  const exit = await runCli(['backup', 'verfy', '/x'], { cwd });
  t.equal(exit.code, ExitCode.usage);
  t.match(exit.stderr, /unknown command svcdb backup verfy; did you mean svcdb backup verify\? \(to give verfy as an argument, write \.\/verfy\)/);
  t.same(readdirSync(cwd), [], 'no backup was written into ./verfy');
  t.notOk(existsSync(join(cwd, 'verfy')));
});

t.test('NO_COLOR and --no-color turn colours off, even when FORCE_COLOR asks for them', async (t) => {
  const coloured = await runCli(['backup', 'verify', '/nonexistent-backup'], { env: { FORCE_COLOR: '1', NO_COLOR: '' } });
  t.ok(coloured.stderr.includes(ESCAPE), 'coloured with FORCE_COLOR alone (the test can tell)');
  const noColor = await runCli(['backup', 'verify', '/nonexistent-backup'], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
  t.equal(noColor.code, coloured.code);
  t.notOk(noColor.stderr.includes(ESCAPE), `NO_COLOR: ${JSON.stringify(noColor.stderr)}`);
  const flag = await runCli(['backup', 'verify', '/nonexistent-backup', '--no-color'], { env: { FORCE_COLOR: '1', NO_COLOR: '' } });
  t.equal(flag.code, coloured.code, '--no-color is a flag every command accepts');
  t.notOk(flag.stderr.includes(ESCAPE), `--no-color: ${JSON.stringify(flag.stderr)}`);
  const help = await runCli(['backup', '--help'], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
  t.notOk(help.stdout.includes(ESCAPE), 'help without colours too');
});

t.test('shell completion: svcdb autocomplete writes completion scripts that know the commands and flags', async (t) => {
  const home = t.testdir({});
  const env = { HOME: home, XDG_CACHE_HOME: join(home, '.cache') };
  const refresh = await runCli(['autocomplete', '--refresh-cache'], { env });
  t.equal(refresh.code, ExitCode.success, refresh.stderr);
  const bash = readFileSync(join(home, '.cache', 'svcdb', 'autocomplete', 'functions', 'bash', 'svcdb.bash'), 'utf8');
  t.match(bash, /stream:append .*--expected-version/, 'bash completes the subcommands and their flags');
  t.match(bash, /serve .*--http-port/);
  const zsh = readFileSync(join(home, '.cache', 'svcdb', 'autocomplete', 'functions', 'zsh', '_svcdb'), 'utf8');
  t.match(zsh, /backup/);
  const script = await runCli(['autocomplete', 'script', 'bash'], { env });
  t.equal(script.code, ExitCode.success);
  t.match(script.stdout, /svcdb autocomplete setup/, 'the line for ~/.bashrc');
  const instructions = await runCli(['autocomplete', 'zsh'], { env });
  t.match(instructions.stdout, /svcdb autocomplete/);
});
