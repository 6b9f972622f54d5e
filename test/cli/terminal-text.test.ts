// What a person reads on a terminal (tmux, a real pseudo-terminal): the verdict of backup verify
// in plain words ("1 chunk", a position with its size), and cert-reload against a node without
// TLS saying there was nothing to reload instead of "certificates reloaded".
import { join } from 'node:path';
import t from 'tap';
import { count, timeSpan } from '../../src/cli/human-text.js';
import { formatDuration as duration } from '../../src/common/human-units.js';
import { runCli, startServer } from '../helpers/cli.js';
import { tempDirectory } from '../helpers/engine.js';
import { TerminalSession } from '../helpers/terminal.js';

t.test('counts and durations in words', async (t) => {
  t.equal(count(1, 'chunk'), '1 chunk');
  t.equal(count(0, 'chunk'), '0 chunks');
  t.equal(count(2, 'index file'), '2 index files');
  t.equal(duration(0.2412), '0.24 s');
  t.equal(duration(125), '2 min 5 s');
  t.equal(timeSpan('00:00:00.2400000'), '0.24 s', 'the node\'s TimeSpan text');
  t.equal(timeSpan('01:03:00'), '1 h 3 min');
});

t.test('on a terminal: backup verify says its verdict, cert-reload on plain HTTP claims no reload', async (t) => {
  const directory = tempDirectory(t);
  const server = await startServer(t, { dbPath: join(directory, 'db') });
  const backup = await runCli(['backup', join(directory, 'backup'), '--db', join(directory, 'db')]);
  t.equal(backup.code, 0, backup.stderr);

  const verify = await TerminalSession.start(t, ['backup', 'verify', join(directory, 'backup')], { unset: ['CI'] });
  const [line] = await verify.waitForLine(/is intact: .*/, 'the verdict');
  t.match(line, /is intact: 1 chunk, 0 index files;/, 'singular for one');
  t.match(line, /a restore keeps the log up to position \d+ \(its first [\d.]+ (B|KiB|MiB)\)/, 'the position explained');
  t.equal(await verify.exitStatus(), 0);

  const reload = await TerminalSession.start(t, ['cert-reload', '--url', server.url], { unset: ['CI'] });
  const [said] = await reload.waitForLine(/.*(nothing to reload|certificates reloaded).*/, 'the outcome');
  t.match(said, /no certificates configured \(plain HTTP\), nothing to reload/);
  t.equal(await reload.exitStatus(), 0);
});
