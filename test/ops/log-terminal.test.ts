// `svcdb serve` in a terminal, as an operator sees it: run under tmux (a real pseudo-terminal) and
// read back from the screen. By default a terminal gets one readable, coloured line per event
// (time, level, message, key=value fields) and no raw JSON; --log-format json gets JSON lines
// there too.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { cliPath } from '../helpers/cli.js';

const run = promisify(execFile);
const WAIT_MS = 30_000;
const POLL_MS = 100;
const escape = String.fromCharCode(27);

/** A tmux server of this test alone (its own socket), with one window running `svcdb serve`. */
class TerminalSession {
  private readonly socket = `svcdb-test-${process.pid}-${Math.random().toString(36).slice(2)}`;

  static async start(t: Test, serveArgs: string[]): Promise<TerminalSession> {
    const session = new TerminalSession();
    t.teardown(() => session.tmux(['kill-server']).catch(() => undefined));
    // SVC_* variables of the test runner must not change the node's options.
    const unset = Object.keys(process.env).filter((name) => name.startsWith('SVC_')).flatMap((name) => ['-u', name]);
    // CI=true (as continuous integration sets it) turns colours off even on a terminal.
    const command = ['env', ...unset, '-u', 'FORCE_COLOR', '-u', 'NO_COLOR', '-u', 'CI', process.execPath, '--no-node-snapshot', cliPath, 'serve', ...serveArgs]
      .map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
    // A wide window, so that lines wrap rarely; the pane stays after the node exits, with its status.
    await session.tmux(['-f', '/dev/null', 'new-session', '-d', '-x', '400', '-y', '100', command, ';', 'set-option', '-w', 'remain-on-exit', 'on']);
    return session;
  }

  tmux(args: string[]): Promise<string> {
    return run('tmux', ['-L', this.socket, ...args]).then(({ stdout }) => stdout);
  }

  /** The screen's text and what scrolled off it, wrapped lines joined; with `colours`, its escape sequences too. */
  screen(colours = false): Promise<string> {
    return this.tmux(['capture-pane', '-p', '-J', '-S', '-', ...(colours ? ['-e'] : [])]);
  }

  /** Waits until a line of the screen matches; fails naming what it waited for. */
  async waitForLine(pattern: RegExp, what: string): Promise<RegExpMatchArray> {
    const deadline = Date.now() + WAIT_MS;
    let text = '';
    while (Date.now() < deadline) {
      text = await this.screen();
      for (const line of text.split('\n')) {
        const match = line.match(pattern);
        if (match) return match;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    throw new Error(`waited ${WAIT_MS} ms for ${what} on the terminal; the screen shows:\n${text}`);
  }

  interrupt(): Promise<string> {
    return this.tmux(['send-keys', 'C-c']);
  }
}

/** The log lines on the screen: without the ^C the terminal echoes and tmux's status of the dead pane. */
function logLines(screen: string): string[] {
  return screen.split('\n')
    .map((line) => line.replace(/^\^C/, '').trimEnd())
    .filter((line) => line !== '' && !line.startsWith('Pane is dead'));
}

t.test('on a terminal, serve writes one readable, coloured line per event, and no JSON', async (t) => {
  const dir = t.testdir();
  const session = await TerminalSession.start(t, ['--db', join(dir, 'db'), '--http-port', '0', '--log-http-requests']);
  const listening = await session.waitForLine(/ INFO +listening address=127\.0\.0\.1 port=(\d+) protocol=http/, 'the listening line');
  const url = `http://127.0.0.1:${listening[1]}`;
  const append = await adminFetch(`${url}/streams/on-screen`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'svc-eventtype': 'Seen', 'svc-eventid': '3a9fd8d5-2b0f-4a4b-8a0c-1c7e1f0b3f11' },
    body: '{"seen":true}',
  });
  t.equal(append.status, 201, 'an append is acknowledged');
  await session.waitForLine(/ INFO +request .*method=POST url=\/streams\/on-screen statusCode=201/, 'the request line');
  await session.interrupt();
  await session.waitForLine(/ INFO +stopped cause=SIGINT clean=true/, 'the stopped line');
  await session.waitForLine(/^Pane is dead \(status 0/, 'the node to exit 0');

  const lines = logLines(await session.screen());
  t.ok(lines.length >= 8, `the start, the request and the stop are on screen (${lines.length} lines)`);
  for (const line of lines) {
    t.match(line, /^\d\d:\d\d:\d\d\.\d{3} (TRACE|DEBUG|INFO |WARN |ERROR|FATAL) \S/, `time, level, message: ${line}`);
    t.notMatch(line, /\{"|"msg"|"level"/, `no raw JSON: ${line}`);
  }
  t.equal(lines.filter((line) => /listening/.test(line)).length, 1, 'one listening line');
  t.ok(lines.some((line) => / WARN +user admin still has the default password.* component=security user=admin$/.test(line)),
    'a warning, with its fields after the message');
  t.match(lines.find((line) => / INFO +starting /.test(line)), / INFO +starting version=\S+ dbPath=\S+ indexPath=\S+$/, `key=value fields, bare when plain:\n${lines.join('\n')}`);
  t.match(await session.screen(true), new RegExp(`${escape}\\[\\d+m(INFO|WARN)`), 'the level is coloured');
});

t.test('with --log-format json, serve writes JSON lines even on a terminal', async (t) => {
  const dir = t.testdir();
  const session = await TerminalSession.start(t, ['--db', join(dir, 'db'), '--http-port', '0', '--log-format', 'json']);
  await session.waitForLine(/"msg":"listening"/, 'the listening line');
  await session.interrupt();
  await session.waitForLine(/"msg":"stopped"/, 'the stopped line');
  await session.waitForLine(/^Pane is dead \(status 0/, 'the node to exit 0');

  const lines = logLines(await session.screen());
  t.ok(lines.length >= 5, `the start and the stop are on screen (${lines.length} lines)`);
  for (const line of lines) {
    let record: unknown;
    t.doesNotThrow(() => {
      record = JSON.parse(line);
    }, `a JSON line: ${line}`);
    t.match(record, { level: Number, time: Number, msg: String }, 'a pino record');
  }
  t.notMatch(await session.screen(true), new RegExp(`${escape}\\[[0-9;]*m\\{`), 'no colour codes around the JSON');
});
