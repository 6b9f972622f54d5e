/**
 * A real node with the projections service (--run-projections All unless told otherwise),
 * started as every test node is (node.ts, the daemon's own composition). Helpers to create
 * projections and read what they wrote over HTTP.
 */
import type { Test } from 'tap';
import type { ProjectionsOptions, ProjectionsService, ServiceStorage } from '../../src/daemon/projections/projections-service.js';
import type { Engine } from '../../src/storage/engine.js';
import { adminFetch } from './auth.js';
import { startNode, type TestNodeOptions } from './node.js';
import { setTimeout as delay } from 'node:timers/promises';
import { pollUntil, WAIT_DEADLINE_MS, WaitTimeoutError } from './wait.js';

export interface ProjectionsNode {
  url: string;
  engine: Engine;
  projections: ProjectionsService;
}

export const PROJECTION_DEFAULTS: ProjectionsOptions = Object.freeze({
  runProjections: 'All', startStandardProjections: false, projectionExecutionTimeout: 250, projectionMemoryLimitMb: 32,
});

/**
 * @param wrapStorage what the projections service is given instead of the engine itself: a test
 * that holds some writes back (a slow disk) wraps it; everything else reaches the real engine.
 */
export async function startProjectionsNode(
  t: Test, options: Partial<ProjectionsOptions> = {}, nodeOptions: TestNodeOptions = {}, wrapStorage?: (engine: Engine) => ServiceStorage,
): Promise<ProjectionsNode> {
  const node = await startNode(t, {
    ...nodeOptions, options: { ...PROJECTION_DEFAULTS, ...options, ...nodeOptions.options },
    ...(wrapStorage && { projectionStorage: wrapStorage }),
  });
  return { url: node.url, engine: node.engine, projections: node.daemon.parts.projections! };
}

/** POST /projections/{mode}?name=…&… with the source; fails the test unless it answers 201. */
export async function createProjection(url: string, mode: string, name: string, source: string, params: Record<string, string> = {}): Promise<void> {
  const query = new URLSearchParams({ name, type: 'JS', ...params });
  const response = await adminFetch(`${url}/projections/${mode}?${query}`, { method: 'POST', body: source, headers: { 'content-type': 'application/json' } });
  if (response.status !== 201) throw new Error(`creating ${name}: ${response.status} ${await response.text()}`);
}

export async function projectionInfo(url: string, name: string): Promise<Record<string, unknown>> {
  const response = await adminFetch(`${url}/projection/${encodeURIComponent(name)}`);
  if (response.status !== 200) throw new Error(`reading ${name}: ${response.status} ${await response.text()}`);
  return await response.json() as Record<string, unknown>;
}

export async function projectionState(url: string, name: string, partition?: string, which: 'state' | 'result' = 'state'): Promise<unknown> {
  const query = partition === undefined ? '' : `?partition=${encodeURIComponent(partition)}`;
  const response = await adminFetch(`${url}/projection/${encodeURIComponent(name)}/${which}${query}`);
  const body = await response.text();
  return body === '' || body === '""' ? undefined : JSON.parse(body) as unknown;
}

/**
 * Waits until the projection has processed the log up to its end as it is now. When $by_category
 * runs, it waits for it first: a category projection reads the links it writes into `$ce-` streams.
 */
export async function waitCaughtUp(node: ProjectionsNode, name: string): Promise<void> {
  const admin = { name: 'admin', groups: ['$admins'] };
  const byCategory = node.projections.get(admin, '$by_category');
  if (name !== '$by_category' && byCategory.status === 'Running') await waitCaughtUp(node, '$by_category');
  const end = node.engine.status().readableEnd;
  await pollUntil(`projection ${name} to reach log position ${end}`, () => {
    const projection = node.projections.get({ name: 'admin', groups: ['$admins'] }, name);
    if (projection.status === 'Faulted') throw new Error(`projection ${name} faulted: ${projection.stateReason}`);
    return projection.positions.next >= end || projection.status === 'Completed';
  }, { intervalMs: 10 });
}

/** Waits for a status such as Faulted or Completed; returns the projection's listing item. */
export async function waitStatus(url: string, name: string, status: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + WAIT_DEADLINE_MS;
  for (;;) {
    const info = await projectionInfo(url, name);
    if (String(info.status).startsWith(status)) return info;
    if (Date.now() > deadline) throw new WaitTimeoutError(`projection ${name} to be ${status} (it is ${String(info.status)}: ${String(info.stateReason)})`, WAIT_DEADLINE_MS);
    await delay(20);
  }
}

/** JSON text as its value; anything else as it is. */
function parsed(value: unknown): unknown {
  if (typeof value !== 'string' || !/^[[{]/.test(value)) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** Events of a stream, oldest first, as an admin (links not resolved unless asked). */
export async function readStream(url: string, stream: string, resolve = false): Promise<Array<Record<string, unknown>>> {
  const events: Array<Record<string, unknown>> = [];
  for (let from = 0; ; from += READ_PAGE) {
    const response = await adminFetch(`${url}/streams/${encodeURIComponent(stream)}/${from}/forward/${READ_PAGE}?embed=tryharder`, {
      headers: { accept: 'application/vnd.svc.atom+json', 'svc-resolvelinktos': resolve ? 'true' : 'false' },
    });
    if (response.status === 404) return events;
    if (response.status !== 200) throw new Error(`reading ${stream}: ${response.status} ${await response.text()}`);
    const feed = await response.json() as { entries: Array<Record<string, unknown>> };
    events.push(...feed.entries.reverse().map((entry) => ({ ...entry, data: parsed(entry.data), metaData: parsed(entry.metaData) })));
    if (feed.entries.length < READ_PAGE) return events;
  }
}

const READ_PAGE = 4096;

/** A gate that holds back the writes it is asked about until it opens. */
export interface WriteGate {
  /** Resolves once a write is held. */
  readonly held: Promise<void>;
  readonly open: () => void;
}

/**
 * Wraps the engine so that appends and deletes of the streams `holds` picks wait for the gate
 * (a disk that does not answer yet); they then reach the real engine.
 */
export function gatedStorage(holds: (streamName: string) => boolean): { wrap: (engine: Engine) => ServiceStorage; gate: WriteGate } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => { open = resolve; });
  let noteHeld: () => void = () => undefined;
  const held = new Promise<void>((resolve) => { noteHeld = resolve; });
  const wrap = (engine: Engine): ServiceStorage => new Proxy(engine, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      if (key !== 'append' && key !== 'deleteStream') return (value as (...args: unknown[]) => unknown).bind(target);
      return async (streamName: string, ...rest: unknown[]) => {
        if (holds(streamName)) {
          noteHeld();
          await opened;
        }
        return (value as (...args: unknown[]) => unknown).call(target, streamName, ...rest);
      };
    },
  });
  return { wrap, gate: { held, open } };
}
