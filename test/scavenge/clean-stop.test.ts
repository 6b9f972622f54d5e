// A node stopped cleanly (SIGTERM) during a scavenge records the run Stopped while its storage is
// still open, and the next start reports it so. Regression: the storage closed before the
// scavenge stopped (fastify runs onClose hooks last registered first), so the Stopped record was
// never written and the next start recorded the run as Failed, as after a crash.
import { join } from 'node:path';
import t from 'tap';
import { startServer } from '../helpers/cli.js';
import { tempDirectory } from '../helpers/engine.js';
import { call, fillRemovable, startScavenge } from '../helpers/scavenge-node.js';
import { pollUntilAsync } from '../helpers/wait.js';

t.test('a node stopped cleanly during a scavenge records it Stopped while its storage is open', async (t) => {
  const dbPath = join(tempDirectory(t), 'db');
  const args = ['--chunk-size', '65536'];
  const first = await startServer(t, { dbPath, args });
  await fillRemovable(first.url, 1500, 100);
  const stopped = await startScavenge(first.url, '?throttlePercent=1&threshold=-1');
  await pollUntilAsync('the scavenge to run', async () => (await call(first.url, 'GET', '/admin/scavenge/current')).body.scavengeId === stopped, { intervalMs: 10 });
  t.equal((await first.process.stop('SIGTERM')).code, 0, 'a clean stop');
  t.match(first.process.logLines.find((line) => line.msg === 'scavenge stopped'), { scavengeId: stopped, result: 'Stopped' }, 'logged Stopped');
  t.notOk(first.process.logLines.some((line) => /could not be recorded/.test(String(line.msg))), 'the stop was recorded');

  const second = await startServer(t, { dbPath, args });
  const recorded = await call(second.url, 'GET', `/admin/scavenge/${stopped}`);
  t.match(recorded.body, { scavengeId: stopped, phase: 'Completed', result: 'Stopped' }, 'recorded Stopped, not Failed');
  await second.process.stop('SIGTERM');
});
