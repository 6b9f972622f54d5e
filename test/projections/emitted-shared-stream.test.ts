/**
 * Two projections emit into one stream a client writes to as well; the node is killed (SIGKILL)
 * and started again, and both process again the events after their checkpoints: the stream then
 * holds each emitted event once and none is missing. Regression: after a restart the emitter
 * looked only at the stream's last event to tell how far it had written; when that event was
 * someone else's (a client's append, another projection's emit) it wrote again everything since
 * its checkpoint. Uses the compiled code (npm run build).
 */
import t from 'tap';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../helpers/cli.js';
import { projectionInfo, projectionState, readStream, waitStatus } from '../helpers/projections.js';
import { appendEvents } from '../helpers/subscriptions.js';
import { adminFetch } from '../helpers/auth.js';
import { pollUntilAsync } from '../helpers/wait.js';

const ARGS = ['--run-projections', 'All'];
const sourceEmitting = (eventType: string) => `fromStream("acct").when({
  $init: function(){ return {n: 0}; },
  $any: function(s, e){ s.n++; emit("audit", "${eventType}", {n: s.n}); return s; }
})`;

async function call(server: RunningServer, path: string, method: string, body?: string): Promise<void> {
  const response = await adminFetch(`${server.url}${path}`, { method, body, headers: { 'content-type': 'application/json' } });
  if (response.status !== 200 && response.status !== 201) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
}

/** A projection emitting into `audit`, checkpointing after `checkpointHandledThreshold` events handled. */
async function createEmitting(server: RunningServer, name: string, eventType: string, checkpointHandledThreshold: number): Promise<void> {
  await call(server, `/projections/continuous?name=${name}&type=JS&emit=yes&enabled=no`, 'POST', sourceEmitting(eventType));
  await call(server, `/projection/${name}/config`, 'PUT', JSON.stringify({ checkpointHandledThreshold, emitEnabled: true }));
  await call(server, `/projection/${name}/command/enable`, 'POST');
}

/** The `n` of each event of that type in `audit`, in stream order. */
async function numbersOf(server: RunningServer, eventType: string): Promise<number[]> {
  const events = await readStream(server.url, 'audit');
  return events.filter((event) => event.eventType === eventType).map((event) => (event.data as { n: number }).n);
}

const upTo = (last: number) => Array.from({ length: last }, (_, index) => index + 1);

async function waitEmitted(server: RunningServer, last: number): Promise<void> {
  await pollUntilAsync(`both projections to emit up to n=${last}`, async () => {
    const [audited, counted] = [await numbersOf(server, 'Audited'), await numbersOf(server, 'Counted')];
    return audited.includes(last) && counted.includes(last);
  }, { intervalMs: 20 });
}

t.test('SIGKILL with others writing to an emitted stream: after the restart each emitted event is there once', async (t) => {
  const dbPath = join(t.testdir(), 'db');
  let server = await startServer(t, { dbPath, args: ARGS });
  // One checkpoints after the first three events, the other never before the kill.
  await createEmitting(server, 'auditing', 'Audited', 3);
  await createEmitting(server, 'counting', 'Counted', 100_000);
  await appendEvents(server.url, 'acct', 3);
  await pollUntilAsync('auditing to checkpoint', async () => (await projectionInfo(server.url, 'auditing')).lastCheckpoint === 'acct: 2', { intervalMs: 20 });
  await appendEvents(server.url, 'acct', 2);
  await waitEmitted(server, 5);
  await appendEvents(server.url, 'audit', 1);
  await server.process.stop('SIGKILL');

  server = await startServer(t, { dbPath, args: ARGS });
  await waitStatus(server.url, 'auditing', 'Running');
  t.equal((await projectionInfo(server.url, 'auditing')).lastCheckpoint, 'acct: 2', 'auditing resumes from its checkpoint');
  await appendEvents(server.url, 'acct', 2);
  await waitEmitted(server, 7);
  t.same(await projectionState(server.url, 'auditing'), { n: 7 });
  t.same(await projectionState(server.url, 'counting'), { n: 7 });
  t.same(await numbersOf(server, 'Audited'), upTo(7), 'each event auditing emitted is there once, in order');
  t.same(await numbersOf(server, 'Counted'), upTo(7), 'each event counting emitted is there once, in order');
  t.equal((await numbersOf(server, 'Thing')).length, 1, 'the client\'s event is there');
  t.equal((await readStream(server.url, 'audit')).length, 15, 'and nothing else');
  await server.process.stop('SIGTERM');
});
