import t, { type Test } from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { RedactionService } from '../../src/daemon/redaction/redaction-service.js';
import { RedactionSocket } from '../../src/daemon/redaction/socket-server.js';
import { SOCKET_FILE_NAME } from '../../src/storage/layout.js';
import { formatEvent, type EventReference } from '../../src/maint/redact/events-list.js';
import { redact } from '../../src/maint/redact/redact.js';
import type { EventRecord } from '../../src/storage/log/record.js';
import { openEngine, tempDirectory } from '../helpers/engine.js';
import { buildRedactionDatabase, checkConsistent, checkFiles, completedEvents, storedEvents, tempFilesOf } from '../helpers/redaction.js';

/**
 * SIGKILL of the node at each step of a chunk switch, and of the redactor at each of its steps:
 * the database opens, every event is there, each listed event is either fully redacted or
 * untouched, every other event is untouched, each chunk has one file and no .tmp file is left.
 */

const NODE_CHILD = fileURLToPath(new URL('../helpers/redaction-node-child.ts', import.meta.url));
const REDACT_CHILD = fileURLToPath(new URL('../helpers/redact-child.ts', import.meta.url));
const silent = pino({ level: 'silent' });
const DEADLINE_MS = 30_000;

function spawnChild(path: string, args: string[]): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', path, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (part) => (output += part));
  child.stderr.on('data', (part) => (output += part));
  return Object.assign(child, { output: () => output });
}

async function waitFor(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`waited ${DEADLINE_MS} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function prepare(t: Test): Promise<{ prepared: string; before: Map<string, EventRecord>; targets: EventReference[] }> {
  const prepared = await buildRedactionDatabase(t);
  const engine = await openEngine(prepared);
  const before = storedEvents(engine);
  const targets = completedEvents(engine, 3);
  await engine.close();
  return { prepared, before, targets };
}

t.test('SIGKILL of the node at each step of a switch', async (t) => {
  const { prepared, before, targets } = await prepare(t);
  for (const step of ['validated', 'renamed', 'switched', 'removed']) {
    const directory = tempDirectory(t);
    cpSync(prepared, directory, { recursive: true });
    const node = spawnChild(NODE_CHILD, [directory, step]);
    await waitFor('the node child to listen', () => node.output().includes('ready') || node.exitCode !== null);
    await t.rejects(redact({ dbPath: join(directory, 'db'), events: targets }), `the redactor fails when the node dies after "${step}"`);
    if (node.signalCode === null) await once(node, 'exit');
    t.equal(node.signalCode, 'SIGKILL', `the node was killed after "${step}"`, { output: node.output() });
    const engine = await openEngine(directory);
    const redacted = checkConsistent(t, `node killed after "${step}"`, engine, before, targets);
    t.ok(step === 'validated' ? redacted === 0 : redacted > 0, `${redacted} events redacted by the first switch`);
    checkFiles(t, `node killed after "${step}"`, directory);
    await engine.close();
  }
});

t.test('SIGKILL of the redactor at each of its steps', async (t) => {
  const { prepared, before, targets } = await prepare(t);
  for (const step of ['locked', 'positions', 'checking', 'copied', 'switched']) {
    const directory = tempDirectory(t);
    cpSync(prepared, directory, { recursive: true });
    const dbPath = join(directory, 'db');
    const engine = await openEngine(directory);
    const socket = await RedactionSocket.start(join(dbPath, SOCKET_FILE_NAME), new RedactionService(engine, dbPath, silent), silent);
    const child = spawnChild(REDACT_CHILD, [dbPath, step, targets.map(formatEvent).join(',')]);
    await once(child, 'exit');
    t.equal(child.signalCode, 'SIGKILL', `the redactor was killed after "${step}"`, { output: child.output() });
    await waitFor('the node to release the dead redactor\'s lock', () => engine.chunkSwitchHolder() === undefined);
    await waitFor('the node to delete the dead redactor\'s copies', () => tempFilesOf(directory).length === 0);
    const redacted = checkConsistent(t, `redactor killed after "${step}", node still running`, engine, before, targets);
    t.ok(step === 'switched' ? redacted > 0 : redacted === 0, `${redacted} events redacted`);
    checkFiles(t, `redactor killed after "${step}"`, directory);
    await socket.close();
    await engine.close();
    const reopened = await openEngine(directory);
    t.equal(checkConsistent(t, `redactor killed after "${step}", after a restart`, reopened, before, targets), redacted, 'the same events are redacted after a restart');
    await reopened.close();
    const again = await openEngine(directory);
    const socketAgain = await RedactionSocket.start(join(dbPath, SOCKET_FILE_NAME), new RedactionService(again, dbPath, silent), silent);
    await redact({ dbPath, events: targets });
    t.equal(checkConsistent(t, 'after running it again', again, before, targets), targets.length, 'running it again finishes the job');
    await socketAgain.close();
  }
});
