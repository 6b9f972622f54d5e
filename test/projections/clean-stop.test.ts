/**
 * A clean stop (SIGINT, SIGTERM) of a real `svcdb serve` stops every service while the storage
 * is still open: each running projection checkpoints and each subscription group writes its
 * checkpoint, and the storage closes last. Regression: fastify runs onClose hooks last
 * registered first, so the storage closed before the projections stopped; every projection
 * faulted with "the engine is closed" and, with no final checkpoint, processed its events (and
 * emitted) again after the restart. Uses the compiled code (npm run build).
 */
import t from 'tap';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../helpers/cli.js';
import { projectionInfo, projectionState, readStream, waitStatus } from '../helpers/projections.js';
import { ack, appendEvents, checkpointOf, mustCreateGroup, take } from '../helpers/subscriptions.js';
import { adminFetch } from '../helpers/auth.js';
import { pollUntilAsync } from '../helpers/wait.js';

const ARGS = ['--run-projections', 'All', '--start-standard-projections'];
const EVENTS = 5;
// Far above the events handled: no checkpoint is written while the node runs, only the stop's.
const CONFIG = { checkpointHandledThreshold: 100_000, checkpointUnhandledBytesThreshold: 1_000_000_000, emitEnabled: true };
const SOURCE = `fromStream("acct").when({
  $init: function(){ return {n: 0}; },
  $any: function(s, e){ s.n++; emit("audit", "Audited", {n: s.n}); return s; }
})`;
const GROUP_SETTINGS = { messageTimeoutMilliseconds: 60_000, checkPointAfterMilliseconds: 60_000, minCheckPointCount: 1000, maxCheckPointCount: 1000 };

async function command(server: RunningServer, path: string, method: string, body?: string): Promise<void> {
  const response = await adminFetch(`${server.url}${path}`, { method, body });
  if (response.status !== 200 && response.status !== 201) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
}

{
  // SIGTERM takes the same way (signals.ts).
  const signal = 'SIGINT';
  t.test(`${signal}: every projection and subscription group checkpoints before the storage closes`, async (t) => {
    const dbPath = join(t.testdir(), 'db');
    let server = await startServer(t, { dbPath, args: ARGS });
    await command(server, '/projections/continuous?name=sum&type=JS&emit=yes&enabled=no', 'POST', SOURCE);
    await command(server, '/projection/sum/config', 'PUT', JSON.stringify(CONFIG));
    await command(server, '/projection/sum/command/enable', 'POST');
    await mustCreateGroup(server.url, 'acct', 'g', GROUP_SETTINGS);
    await appendEvents(server.url, 'acct', EVENTS);
    await pollUntilAsync('sum to handle every event', async () => (await projectionState(server.url, 'sum') as { n?: number } | undefined)?.n === EVENTS, { intervalMs: 20 });
    const taken = await take(server.url, 'acct', 'g', EVENTS);
    t.equal((await ack(server.url, 'acct', 'g', taken.ids)).status, 202, 'every message acknowledged');
    t.equal((await projectionInfo(server.url, 'sum')).lastCheckpoint, 'acct: -1', 'no checkpoint while the node runs');

    const stopped = await server.process.stop(signal);
    t.equal(stopped.code, 0, 'the node exits with 0');
    const faults = server.process.logLines.filter((line) => line.msg === 'projection faulted' || /failed/.test(String(line.msg)));
    t.same(faults, [], 'no projection faulted and nothing failed to stop');
    t.match(server.process.logLines.find((line) => line.msg === 'stopped'), { clean: true }, 'the stop is clean');

    server = await startServer(t, { dbPath, args: ARGS });
    const info = await waitStatus(server.url, 'sum', 'Running');
    t.equal(info.lastCheckpoint, `acct: ${EVENTS - 1}`, 'the stop checkpointed the last event handled');
    t.same(await projectionState(server.url, 'sum'), { n: EVENTS }, 'the state is restored from that checkpoint');
    t.equal((await projectionInfo(server.url, 'sum')).eventsProcessedAfterRestart, 0, 'nothing is processed again');
    t.equal((await readStream(server.url, 'audit')).length, EVENTS, 'each emitted event is written once');
    t.equal(await checkpointOf(server.url, 'acct', 'g'), EVENTS - 1, 'the group checkpointed every acknowledged message');
    await server.process.stop('SIGTERM');
  });
}
