import t, { type Test } from 'tap';
import { randomUUID } from 'node:crypto';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { formatEvent, type EventReference } from '../../src/maint/redact/events-list.js';
import { redact, type RedactStep } from '../../src/maint/redact/redact.js';
import type { EventRecord } from '../../src/storage/log/record.js';
import { adminFetch } from '../helpers/auth.js';
import { runCli, startServer } from '../helpers/cli.js';
import { openEngine, tempDirectory } from '../helpers/engine.js';
import { checkConsistent, checkFiles, completedEvents, REDACTION_STREAMS, storedEvents } from '../helpers/redaction.js';

/**
 * SIGKILL of a real `svcdb serve --enable-unix-socket` at each step of a redaction: once the
 * redactor holds the lock, once it has the positions, once the node checks the copies, once it
 * has copied a chunk, and at each step of the node's chunk switch (validated, renamed, switched,
 * removed; the node kills itself there through its testing hook). The node then starts again on
 * the same --db: the database opens and serves, every event is there, each listed event is fully
 * redacted or untouched and every other one untouched, no chunk has two files and no .tmp file
 * is left; a second run of `svcdb redact` then finishes the job.
 */

// A node start and a redactor run per kill point: on a loaded machine that can outlast the
// suite's 300 s per file, so this file asks the runner for more.
t.setTimeout(600_000);

const SERVE_ARGS = ['--enable-unix-socket', '--chunk-size', '65536'];
const REDACTOR_STEPS: RedactStep[] = ['locked', 'positions', 'checking', 'copied'];
const SWITCH_STEPS = ['validated', 'renamed', 'switched', 'removed'];

/** A database written by a real node: the three redaction streams over several chunks. */
async function prepare(t: Test): Promise<{ prepared: string; before: Map<string, EventRecord>; targets: EventReference[] }> {
  const prepared = tempDirectory(t);
  const server = await startServer(t, { dbPath: join(prepared, 'db'), args: SERVE_ARGS });
  for (let batch = 0; batch < 40; batch++) {
    for (const stream of REDACTION_STREAMS) {
      const events = Array.from({ length: 5 }, (_, i) => ({ eventId: randomUUID(), eventType: `Type${i}`, data: { secret: `${stream}-${batch}-${i}`, pad: 'p'.repeat(150) }, metadata: { batch } }));
      const response = await adminFetch(`${server.url}/streams/${stream}`, {
        method: 'POST', headers: { 'content-type': 'application/vnd.svc.events+json' }, body: JSON.stringify(events),
      });
      if (response.status !== 201) throw new Error(`append: ${response.status} ${await response.text()}`);
    }
  }
  await server.process.stop('SIGTERM');
  const engine = await openEngine(prepared);
  const before = storedEvents(engine);
  const targets = completedEvents(engine, 3);
  await engine.close();
  return { prepared, before, targets };
}

/** Restarts the node, reads a stream over HTTP, stops it, and checks the files and events. */
async function checkAfterRestart(t: Test, label: string, directory: string, before: Map<string, EventRecord>, targets: EventReference[]): Promise<number> {
  const dbPath = join(directory, 'db');
  const server = await startServer(t, { dbPath, args: SERVE_ARGS });
  const page = await adminFetch(`${server.url}/streams/orders-1/0/forward/4096`, { headers: { accept: 'application/vnd.svc.atom+json' } });
  t.equal(page.status, 200, `${label}: the restarted node serves the stream`);
  const served = (JSON.parse(await page.text()) as { entries: unknown[] }).entries.length;
  t.equal(served, [...before.keys()].filter((key) => key.endsWith('@orders-1')).length, `${label}: with every event`);
  checkFiles(t, `${label}, node running again`, directory);
  await server.process.stop('SIGTERM');
  const engine = await openEngine(directory);
  try {
    return checkConsistent(t, label, engine, before, targets);
  } finally {
    await engine.close();
  }
}

/** Runs `svcdb redact` again on a restarted node: it finishes what the killed run began. */
async function finish(t: Test, label: string, directory: string, before: Map<string, EventRecord>, targets: EventReference[]): Promise<void> {
  const dbPath = join(directory, 'db');
  const server = await startServer(t, { dbPath, args: SERVE_ARGS });
  const run = await runCli(['redact', '--db', dbPath, '--events', targets.map(formatEvent).join(',')]);
  t.equal(run.code, 0, `${label}: svcdb redact runs again`, { stderr: run.stderr });
  await server.process.stop('SIGTERM');
  const engine = await openEngine(directory);
  t.equal(checkConsistent(t, `${label}, run again`, engine, before, targets), targets.length, `${label}: every listed event is redacted after the second run`);
  await engine.close();
  checkFiles(t, `${label}, run again`, directory);
}

t.test('SIGKILL of svcdb serve at each step of a redaction', async (t) => {
  const { prepared, before, targets } = await prepare(t);

  for (const step of REDACTOR_STEPS) {
    const label = `node killed once the redactor was past "${step}"`;
    const directory = tempDirectory(t);
    cpSync(prepared, directory, { recursive: true });
    const dbPath = join(directory, 'db');
    const server = await startServer(t, { dbPath, args: SERVE_ARGS });
    let killed = false;
    const onStep = async (reached: RedactStep) => {
      if (reached !== step || killed) return;
      killed = true;
      await server.process.stop('SIGKILL');
    };
    await t.rejects(redact({ dbPath, events: targets, onStep }), `${label}: the redactor fails`);
    t.ok(killed, `${label}: the node was killed`);
    t.equal((await server.process.exited).signal, 'SIGKILL');
    t.equal(await checkAfterRestart(t, label, directory, before, targets), 0, `${label}: nothing was redacted`);
    await finish(t, label, directory, before, targets);
  }

  for (const step of SWITCH_STEPS) {
    const label = `node killed after the switch step "${step}"`;
    const directory = tempDirectory(t);
    cpSync(prepared, directory, { recursive: true });
    const dbPath = join(directory, 'db');
    const server = await startServer(t, { dbPath, args: SERVE_ARGS, env: { SVC_TEST_REDACT_KILL_AFTER: step } });
    await t.rejects(redact({ dbPath, events: targets }), `${label}: the redactor fails`);
    t.equal((await server.process.exited).signal, 'SIGKILL', `${label}: the node died by SIGKILL`);
    const redacted = await checkAfterRestart(t, label, directory, before, targets);
    t.ok(step === 'validated' ? redacted === 0 : redacted > 0, `${label}: ${redacted} events redacted by the first switch`);
    await finish(t, label, directory, before, targets);
  }
});
