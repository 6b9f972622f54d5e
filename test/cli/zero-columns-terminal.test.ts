// A pseudo-terminal that reports 0 columns: what `script` gives when it has no terminal of its
// own, and `docker exec -t` or `kubectl exec -t` before the first resize. The commands that draw a
// spinner on a terminal must do their work and exit there as anywhere else, not hang drawing.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { cliPath, startServer } from '../helpers/cli.js';
import { appendEvents } from '../helpers/subscriptions.js';
import { withDeadline } from '../helpers/wait.js';

/** What a spinner writes to clear its line before drawing it again. */
const CURSOR_UP = '\u001b[1A';

interface ScriptRun {
  code: number | null;
  output: string;
}

/** Runs `svcdb args…` under `script` with stdin from /dev/null, after printing the terminal's size. */
function underZeroColumnTerminal(t: Test, args: readonly string[]): Promise<ScriptRun> {
  const command = ['stty size;', 'exec', process.execPath, cliPath, ...args].map((word) => (word.endsWith(';') ? word : `'${word}'`)).join(' ');
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let output = '';
  child.stdout.setEncoding('latin1').on('data', (text: string) => {
    output += text;
  });
  child.stderr.resume();
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })));
}

const dbPath = join(t.testdir(), 'db');
const server = await startServer(t, { dbPath });
await appendEvents(server.url, 'orders', 20);

t.test('backup runs to its end and prints its summary without a spinner', async (t) => {
  const destination = join(t.testdir(), 'backup');
  const run = await withDeadline(underZeroColumnTerminal(t, ['backup', destination, '--db', dbPath]), 'svcdb backup to exit on a 0-column terminal');
  t.match(run.output, /^\d+ 0\r?\n/, 'the terminal reports 0 columns');
  t.equal(run.code, 0, `exit code 0; the terminal showed:\n${run.output.slice(0, 2000)}`);
  t.match(run.output, /full backup of node [0-9a-f-]{36} in .*: \d+ files copied/, 'the summary is printed');
  t.ok(readdirSync(join(destination, 'db')).some((name) => name.startsWith('chunk-')), 'the backup holds the chunks');
  t.notOk(run.output.includes(CURSOR_UP), 'no spinner line was drawn or cleared');
});

t.test('scavenge start --wait runs to its end and prints its summary without a spinner', async (t) => {
  const run = await withDeadline(underZeroColumnTerminal(t, ['scavenge', 'start', '--wait', '--url', server.url]), 'svcdb scavenge start --wait to exit on a 0-column terminal');
  t.equal(run.code, 0, `exit code 0; the terminal showed:\n${run.output.slice(0, 2000)}`);
  t.match(run.output, /scavenge [0-9a-f-]{36} succeeded/, 'the summary is printed');
  t.notOk(run.output.includes(CURSOR_UP), 'no spinner line was drawn or cleared');
});
