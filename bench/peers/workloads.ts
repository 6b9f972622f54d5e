/**
 * The workloads svcdb and its peers run, the shape every peer implements to run them, and the
 * measuring of one workload against one running server.
 */
import { runFor, percentile } from '../measure.js';
import { treeCpuSeconds } from './process-cpu.js';

/** The one event every system stores: a JSON order of about 320 bytes. */
export const PAYLOAD = JSON.stringify({
  orderId: 'order-7f3a9c2e', customerId: 'customer-000451', placedAt: '2026-11-28T16:49:43.512Z',
  lines: [{ sku: 'SKU-1001-BLUE-M', quantity: 2, unitCents: 1999 }, { sku: 'SKU-2002-GREY-L', quantity: 1, unitCents: 8498 }],
  shipping: { method: 'standard', street: '12 Example Street', city: 'Springfield', country: 'DE' },
});
export const EVENT_TYPE = 'OrderPlaced';

/** Single appends by `clients` clients, each to its own stream; or each system's batches. */
export type Work = { kind: 'single'; clients: number } | { kind: 'batch' };

export const WORKLOADS: readonly Work[] = [
  { kind: 'single', clients: 1 },
  { kind: 'single', clients: 10 },
  { kind: 'single', clients: 50 },
  { kind: 'batch' },
];

export function workName(work: Work): string {
  return work.kind === 'single' ? `single appends, ${work.clients} client${work.clients === 1 ? '' : 's'}` : 'batches';
}

/** Clients connected to a server for one workload. */
export interface Session {
  clients: number;
  eventsPerRequest: number;
  /** What a batch is on this system, for the figures' notes. */
  shape: string;
  /** One request of client `client`, resolved once the server acknowledged it as durable. */
  send(client: number): Promise<unknown>;
  close(): Promise<void>;
}

/** A server started on a fresh data directory. */
export interface RunningSystem {
  /** The server's process: its CPU (with its children's) is what a workload costs it. */
  pid: number;
  open(work: Work): Promise<Session>;
  /** Durable flushes so far (a WAL fdatasync, a group commit); undefined where none are counted. */
  syncs(): Promise<number | undefined>;
  stop(): Promise<void>;
}

export interface System {
  label: string;
  /** Why it cannot run here (not installed, with the line that installs it), or undefined. */
  missing(): string | undefined;
  /** Starts the server, its command after `prefix` (the core it is pinned to). */
  start(prefix: string[]): Promise<RunningSystem>;
}

export interface Result {
  eventsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  syncsPerSecond: number | undefined;
  cpuUsPerEvent: number;
  /** The load generator's share of its core: near 100% the figures are the client's limit. */
  loadGeneratorShare: number;
  shape: string;
}

/** Runs `work` for `durationMs` against a running server and measures it. */
export async function measure(system: RunningSystem, work: Work, durationMs: number): Promise<Result> {
  const session = await system.open(work);
  const syncsBefore = await system.syncs();
  const cpuBefore = treeCpuSeconds(system.pid);
  const loadBefore = process.cpuUsage();
  const { latenciesMs, elapsedMs } = await runFor(durationMs, session.clients, (client) => session.send(client));
  const cpuSeconds = treeCpuSeconds(system.pid) - cpuBefore;
  const load = process.cpuUsage(loadBefore);
  // Closed first: PostgreSQL's backends publish their last WAL counts when they exit.
  await session.close();
  const syncsAfter = await system.syncs();
  const seconds = elapsedMs / 1000;
  const events = latenciesMs.length * session.eventsPerRequest;
  return {
    eventsPerSecond: events / seconds,
    p50Ms: percentile(latenciesMs, 50),
    p99Ms: percentile(latenciesMs, 99),
    syncsPerSecond: syncsBefore === undefined || syncsAfter === undefined ? undefined : (syncsAfter - syncsBefore) / seconds,
    cpuUsPerEvent: (cpuSeconds * 1e6) / events,
    loadGeneratorShare: (load.user + load.system) / 1e6 / seconds,
    shape: session.shape,
  };
}
