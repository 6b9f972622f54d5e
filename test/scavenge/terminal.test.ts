// `svcdb scavenge start --wait` on a terminal, as an operator sees it: run under tmux (a real
// pseudo-terminal) and read back from the screen. The spinner shows the phase, the chunks done and
// the bytes reclaimed while the scavenge runs, then the summary.
import { join } from 'node:path';
import t from 'tap';
import { startServer } from '../helpers/cli.js';
import { tempDirectory } from '../helpers/engine.js';
import { fillRemovable } from '../helpers/scavenge-node.js';
import { isExitLine, TerminalSession } from '../helpers/terminal.js';

// Generous: on a loaded machine the run can take a while.
const WAIT_MS = 240_000;
const POLL_MS = 50;

t.test('on a terminal, --wait shows a spinner with phase, chunks and bytes, then a summary', async (t) => {
  const directory = tempDirectory(t);
  const server = await startServer(t, { dbPath: join(directory, 'db'), args: ['--chunk-size', '65536'] });
  await fillRemovable(server.url, 800, 50);

  // Throttled to 50%, the run lasts long enough to be seen going.
  const session = await TerminalSession.start(t,
    ['scavenge', 'start', '--wait', '--throttle-percent', '50', '--threshold', '-1', '--url', server.url],
    { unset: ['CI'], columns: 200, rows: 20, waitMs: WAIT_MS });

  const seen = new Set<string>();
  let screen = '';
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline && !screen.split('\n').some(isExitLine)) {
    screen = await session.screen();
    const progress = screen.match(/Scavenging: (\w+), (chunks|streams|merges|index files) \d+(\/\d+)?, [\d.]+ (B|KiB|MiB) reclaimed/);
    if (progress) seen.add(progress[1]);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  t.ok(seen.size > 0, `the spinner showed the run's progress (phases seen: ${[...seen].join(', ')})`);
  t.match(screen, /scavenge [0-9a-f-]{36} succeeded in (\d+(\.\d+)? s|\d+ min \d+ s): [\d.]+ (B|KiB|MiB) reclaimed/, `the summary line; the screen shows:\n${screen}`);
  t.notMatch(screen, /Scavenging: /, 'the spinner line was replaced by the summary');
  t.equal(await session.exitStatus(), 0, 'the command exited 0');
});
