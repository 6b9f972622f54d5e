/**
 * A real `svcdb serve` with projections, stopped cleanly and killed with SIGKILL while its
 * projections process: after the restart each continuous projection resumes from its checkpoint,
 * its state equals what a run without the stop computes, and its emitted streams and the system
 * projections' streams hold every event once. Transient projections vanish with the node.
 * Uses the compiled code (npm run build).
 */
import t, { type Test } from 'tap';
import { join } from 'node:path';
import { ADMIN_AUTH } from '../helpers/auth.js';
import { startServer, type RunningServer } from '../helpers/cli.js';
import { testRandom } from '../helpers/random.js';
import { readStream } from '../helpers/projections.js';
import { withDeadline, WAIT_DEADLINE_MS } from '../helpers/wait.js';

// Several node starts, each replaying projections: on a loaded machine that can outlast the
// suite's 300 s per file, so this file asks the runner for more.
t.setTimeout(600_000);

const ARGS = ['--run-projections', 'All', '--start-standard-projections', '--chunk-size', String(1024 * 1024)];
const STREAMS = 5;
const SOURCE = `fromCategory("acct").foreachStream().when({
  $init: function(){ return {count: 0, sum: 0}; },
  Deposited: function(s, e){ s.count++; s.sum += e.body.amount; emit("audit-" + e.streamId, "Audited", {amount: e.body.amount}); }
})`;

const call = (server: RunningServer, path: string, init: RequestInit = {}) =>
  fetch(`${server.url}${path}`, { ...init, headers: { authorization: ADMIN_AUTH, ...(init.headers as Record<string, string> | undefined) } });

async function appendBatch(server: RunningServer, stream: string, amounts: number[]): Promise<void> {
  const body = JSON.stringify(amounts.map((amount) => ({ eventId: crypto.randomUUID(), eventType: 'Deposited', data: { amount } })));
  const response = await call(server, `/streams/${stream}`, { method: 'POST', body, headers: { 'content-type': 'application/vnd.svc.events+json' } });
  if (response.status !== 201) throw new Error(`append to ${stream}: ${response.status} ${await response.text()}`);
}

async function info(server: RunningServer, name: string): Promise<Record<string, unknown>> {
  return await (await call(server, `/projection/${encodeURIComponent(name)}`)).json() as Record<string, unknown>;
}

async function waitProcessed(server: RunningServer, name: string, check: (item: Record<string, unknown>) => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_DEADLINE_MS;
  for (;;) {
    const item = await info(server, name);
    if (String(item.status).startsWith('Faulted')) throw new Error(`${name} faulted: ${String(item.stateReason)}`);
    if (check(item)) return;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${name} to ${what}: ${JSON.stringify(item)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Expected { count: number; sum: number }

async function checkAll(t: Test, server: RunningServer, expected: Map<string, Expected>, label: string): Promise<void> {
  let total = 0;
  for (const value of expected.values()) total += value.count;
  let seen = '';
  await withDeadline((async () => {
    for (;;) {
      const ce = await readStream(server.url, '$ce-acct');
      const audits = await Promise.all([...expected.keys()].map((stream) => readStream(server.url, `audit-${stream}`)));
      if (ce.length >= total && audits.every((audit, index) => audit.length >= [...expected.values()][index].count)) return;
      const [accounts, byCategory] = [await info(server, 'accounts'), await info(server, '$by_category')];
      seen = `$ce-acct ${ce.length}/${total}, audits ${audits.map((audit) => audit.length).join(',')}; accounts ${String(accounts.status)} ${String(accounts.stateReason)} ` +
        `${String(accounts.position)}; $by_category ${String(byCategory.status)} ${String(byCategory.stateReason)} ${String(byCategory.position)}`;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })(), `${label}: the projections to catch up`).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}; last seen: ${seen}`);
  });
  for (const [stream, value] of expected) {
    const state = await (await call(server, `/projection/accounts/state?partition=${stream}`)).json();
    t.same(state, value, `${label}: state of ${stream} equals a run without the stop`);
    const audit = await readStream(server.url, `audit-${stream}`);
    t.equal(audit.length, value.count, `${label}: audit-${stream} holds each emitted event once`);
  }
  const ce = await readStream(server.url, '$ce-acct');
  t.equal(ce.length, total, `${label}: $ce-acct links each event once`);
  t.equal(new Set(ce.map((entry) => entry.data)).size, total, `${label}: no link is repeated`);
}

t.test('clean restart and SIGKILL during processing: states as uncrashed, no duplicate emitted events', async (t) => {
  const random = testRandom(t);
  const dbPath = join(t.testdir(), 'db');
  let server = await startServer(t, { dbPath, args: ARGS });
  const create = await call(server, '/projections/continuous?name=accounts&type=JS&emit=yes&enabled=no', { method: 'POST', body: SOURCE });
  t.equal(create.status, 201);
  const config = await call(server, '/projection/accounts/config', { method: 'PUT', body: JSON.stringify({ checkpointHandledThreshold: 20, emitEnabled: true }) });
  t.equal(config.status, 200);
  t.equal((await call(server, '/projection/accounts/command/enable', { method: 'POST' })).status, 200);
  const temporary = await call(server, '/projections/transient?name=temp&type=JS', { method: 'POST', body: 'fromAll().when({})' });
  t.equal(temporary.status, 201);

  const expected = new Map<string, Expected>();
  const appendSome = async (batches: number) => {
    for (let i = 0; i < batches; i++) {
      const stream = `acct-${random.integer(0, STREAMS - 1)}`;
      const amounts = Array.from({ length: random.integer(1, 20) }, () => random.integer(1, 1000));
      await appendBatch(server, stream, amounts);
      const value = expected.get(stream) ?? { count: 0, sum: 0 };
      expected.set(stream, { count: value.count + amounts.length, sum: value.sum + amounts.reduce((a, b) => a + b, 0) });
    }
  };

  await appendSome(60);
  await checkAll(t, server, expected, 'before any stop');
  await server.process.stop('SIGTERM');
  server = await startServer(t, { dbPath, args: ARGS });
  t.equal((await call(server, '/projection/temp')).status, 404, 'the transient projection vanished with the node');
  t.match(await info(server, 'accounts'), { status: 'Running' }, 'the continuous projection runs again');
  await appendSome(20);
  await checkAll(t, server, expected, 'after a clean restart');

  for (let kill = 0; kill < 3; kill++) {
    await appendSome(150);
    // Killed while the projections are still behind the end of the log.
    await waitProcessed(server, 'accounts', (item) => Number(item.eventsProcessedAfterRestart) > 0, 'process some events');
    await server.process.stop('SIGKILL');
    server = await startServer(t, { dbPath, args: ARGS });
    await checkAll(t, server, expected, `after SIGKILL ${kill + 1}`);
  }
});
