/**
 * A real node in the test process for the scavenge tests: the daemon with its real engine, real
 * scavenger and real HTTP server on port 0, small chunks so a few hundred events span several.
 * A test may wrap the scavenger to hold a run at its start (a slow disk, in effect) or to make it
 * fail (a fault): the run itself is always the real one.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import type { Test } from 'tap';
import type { RawValue } from '../../src/common/options/load.js';
import type { OptionKey } from '../../src/common/options/schema.js';
import { Daemon, type OpenScavenger } from '../../src/daemon/daemon.js';
import { daemonOptions } from '../../src/daemon/options.js';
import { openNodeScavenger } from '../../src/daemon/scavenge/open-scavenger.js';
import { Engine } from '../../src/storage/engine.js';
import type { ScavengeRunOptions, Scavenger } from '../../src/storage/maintenance/scavenge/types.js';
import { adminFetch } from './auth.js';
import { setTimeout as delay } from 'node:timers/promises';
import { WAIT_DEADLINE_MS, WaitTimeoutError } from './wait.js';

const POLL_INTERVAL_MS = 50;

export interface ScavengeNode {
  daemon: Daemon;
  engine: Engine;
  url: string;
  directory: string;
  /** The node's log lines, parsed. */
  logs: Array<Record<string, unknown>>;
}

export interface ScavengeNodeOptions {
  options?: Partial<Record<OptionKey, RawValue>>;
  openScavenger?: OpenScavenger;
  directory?: string;
}

export const CHUNK_SIZE = 64 * 1024;

export async function startScavengeNode(t: Test, nodeOptions: ScavengeNodeOptions = {}): Promise<ScavengeNode> {
  const directory = nodeOptions.directory ?? t.testdir();
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  const options = daemonOptions({ db: join(directory, 'db'), httpPort: 0, chunkSize: CHUNK_SIZE, ...nodeOptions.options }, directory);
  let engine!: Engine;
  const daemon = await Daemon.start(options, {
    logger, version: '0.0.0-test',
    openStorage: async (engineOptions) => (engine = await Engine.open(engineOptions)),
    ...(nodeOptions.openScavenger && { openScavenger: nodeOptions.openScavenger }),
  });
  t.teardown(() => daemon.stop());
  return { daemon, engine, url: `http://127.0.0.1:${daemon.address.port}`, directory, logs };
}

/** A gate a test opens: runs wait at it. */
export class Gate {
  private opened!: () => void;
  readonly open: Promise<void> = new Promise((resolve) => (this.opened = resolve));
  release(): void {
    this.opened();
  }
}

/** The real scavenger, whose runs wait for `gate` (or for their stop) before they begin. */
export function gatedScavenger(gate: () => Gate | undefined): OpenScavenger {
  return (storage, settings) => wrap(openNodeScavenger(storage, settings), async (options, run) => {
    const current = gate();
    if (current) {
      const stopped = new Promise<void>((resolve) => options.signal.addEventListener('abort', () => resolve(), { once: true }));
      await Promise.race([current.open, stopped]);
    }
    return run(options);
  });
}

export function wrap(real: Scavenger, run: (options: ScavengeRunOptions, real: Scavenger['run']) => ReturnType<Scavenger['run']>): Scavenger {
  return {
    checkpoint: () => real.checkpoint(),
    run: (options) => run(options, (o) => real.run(o)),
    close: () => real.close(),
  };
}

export async function appendJson(url: string, stream: string, count: number, expectedVersion = -2): Promise<void> {
  const events = Array.from({ length: count }, (_, i) => ({ eventId: randomUUID(), eventType: 'Tested', data: { i, padding: 'x'.repeat(400) } }));
  const response = await adminFetch(`${url}/streams/${encodeURIComponent(stream)}`, {
    method: 'POST', headers: { 'content-type': 'application/vnd.svc.events+json', 'svc-expectedversion': String(expectedVersion) }, body: JSON.stringify(events),
  });
  if (response.status !== 201) throw new Error(`append to ${stream}: ${response.status} ${await response.text()}`);
}

export async function setMetadata(url: string, stream: string, metadata: Record<string, unknown>): Promise<void> {
  const response = await adminFetch(`${url}/streams/${encodeURIComponent(stream)}/metadata`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'svc-eventid': randomUUID(), 'svc-eventtype': '$metadata' }, body: JSON.stringify(metadata),
  });
  if (response.status !== 201) throw new Error(`metadata of ${stream}: ${response.status} ${await response.text()}`);
}

/**
 * A log where most of the first chunks can go: `removable` events in a stream truncated to its
 * last 10 by $maxCount, then `kept` events elsewhere so the removable ones sit in completed chunks.
 */
export async function fillRemovable(url: string, removable = 400, kept = 100): Promise<void> {
  for (let done = 0; done < removable; done += 50) await appendJson(url, 'doomed', 50);
  await setMetadata(url, 'doomed', { $maxCount: 10 });
  for (let done = 0; done < kept; done += 50) await appendJson(url, 'kept', 50);
}

export interface Reply<T = any> {
  status: number;
  body: T;
  text: string;
}

export async function call<T = any>(url: string, method: string, path: string, init: RequestInit = {}): Promise<Reply<T>> {
  const response = await adminFetch(`${url}${path}`, { method, ...init });
  const text = await response.text();
  let body: any;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body: body as T, text };
}

export async function startScavenge(url: string, query = ''): Promise<string> {
  const reply = await call<{ scavengeId: string }>(url, 'POST', `/admin/scavenge${query}`);
  if (reply.status !== 200) throw new Error(`start answered ${reply.status}: ${reply.text}`);
  return reply.body.scavengeId;
}

/** Waits until the run has ended; returns its $scavengeCompleted data as GET /admin/scavenge/{id} gives it. */
export async function completion(url: string, scavengeId: string): Promise<Record<string, any>> {
  const deadline = Date.now() + WAIT_DEADLINE_MS;
  for (;;) {
    const reply = await call(url, 'GET', `/admin/scavenge/${scavengeId}`);
    if (reply.body?.phase === 'Completed') return reply.body as Record<string, any>;
    if (Date.now() > deadline) throw new WaitTimeoutError(`scavenge ${scavengeId} to complete`, WAIT_DEADLINE_MS, reply.text);
    await delay(POLL_INTERVAL_MS);
  }
}

/** The events of a stream, oldest first, as the engine holds them. */
export function streamEvents(engine: Engine, stream: string): Array<{ eventType: string; data: any; eventNumber: number }> {
  const page = engine.readStreamForward(stream, 0, 4096);
  return page.events.map((event) => ({
    eventType: event.eventType, eventNumber: event.eventNumber,
    data: event.eventType === '$>' ? event.data.toString('utf8') : JSON.parse(event.data.toString('utf8') || 'null'),
  }));
}
