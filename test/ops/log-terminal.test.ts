// `svcdb serve` in a terminal, as an operator sees it: run under tmux (a real pseudo-terminal) and
// read back from the screen. By default a terminal gets one readable, coloured line per event
// (time, level, message, key=value fields) and no raw JSON; --log-format json gets JSON lines
// there too.
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { isExitLine, TerminalSession } from '../helpers/terminal.js';

const escape = String.fromCharCode(27);

/** `svcdb serve` on a wide terminal (lines wrap rarely), with colours allowed. */
function startServe(t: Test, serveArgs: string[]): Promise<TerminalSession> {
  // CI=true (as continuous integration sets it) turns colours off even on a terminal.
  return TerminalSession.start(t, ['serve', ...serveArgs], { unset: ['FORCE_COLOR', 'NO_COLOR', 'CI'], columns: 400, rows: 100 });
}

/** The log lines on the screen: without the ^C the terminal echoes, the exit status and tmux's line of the dead pane. */
function logLines(screen: string): string[] {
  return screen.split('\n')
    .map((line) => line.replace(/^\^C/, '').trimEnd())
    .filter((line) => line !== '' && !isExitLine(line) && !line.startsWith('Pane is dead'));
}

t.test('on a terminal, serve writes one readable, coloured line per event, and no JSON', async (t) => {
  const dir = t.testdir();
  const session = await startServe(t, ['--db', join(dir, 'db'), '--http-port', '0', '--log-http-requests']);
  const listening = await session.waitForLine(/ INFO +listening address=127\.0\.0\.1 port=(\d+) protocol=http/, 'the listening line');
  const url = `http://127.0.0.1:${listening[1]}`;
  const append = await adminFetch(`${url}/streams/on-screen`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'svc-eventtype': 'Seen', 'svc-eventid': '3a9fd8d5-2b0f-4a4b-8a0c-1c7e1f0b3f11' },
    body: '{"seen":true}',
  });
  t.equal(append.status, 201, 'an append is acknowledged');
  await session.waitForLine(/ INFO +request .*method=POST url=\/streams\/on-screen statusCode=201/, 'the request line');
  // The warning is written once the start has checked the passwords, which it does not wait for.
  await session.waitForLine(/ WARN +user admin still has the default password/, 'the default-password warning');
  await session.interrupt();
  await session.waitForLine(/ INFO +stopped cause=SIGINT clean=true/, 'the stopped line');
  t.equal(await session.exitStatus(), 0, 'the node exited 0');

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
  const session = await startServe(t, ['--db', join(dir, 'db'), '--http-port', '0', '--log-format', 'json']);
  await session.waitForLine(/"msg":"listening"/, 'the listening line');
  await session.interrupt();
  await session.waitForLine(/"msg":"stopped"/, 'the stopped line');
  t.equal(await session.exitStatus(), 0, 'the node exited 0');

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
