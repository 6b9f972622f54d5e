/**
 * Replication under load, leader and replicas as separate `svcdb serve` processes on loopback:
 *
 * - the leader's throughput of single-event appends over HTTP (autocannon, as the http bench)
 *   with no replica and with two replicas following, alternated over rounds so that drift on a
 *   shared machine falls on both alike (target: with replicas, at least 90% of without);
 * - replication lag under a steady load at half the leader's throughput without replicas: for
 *   each event, the time from the leader's 201 reaching this process to the event being read on
 *   a replica by a long poll of its stream that was waiting for it (target p99 < 50 ms). Both
 *   instants are taken on this process's clock. An event a replica served before the 201 arrived
 *   counts as 0. A long poll answered while events kept coming is sent again at once, so what it
 *   adds is one loopback round trip: the figure is an upper bound of the replica's own lag.
 *
 * Where `taskset` exists the leader has the cores other than the first to itself; the load
 * generator (this process) and the replicas share the first, as replicas on other machines
 * would take nothing from the leader's cores; SVC_BENCH_REPLICATION_UNPINNED=1 leaves every
 * process to the scheduler.
 */
import type autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { cpuPerRequest, load, pinning, singleAppends, startServer, stop, type Load, type Server } from './http.js';
import { median, percentile, report, section } from './measure.js';
import { writerCheckpoint } from './replication.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ROUNDS = 3;
const REPLICAS = 2;
const LAG_SECONDS = Number(process.env.SVC_BENCH_SECONDS ?? 3) + 7;
const LAG_STREAM = 'replication-lag';
/** The fixed rate the leader's CPU per append is taken at: below what the load generator reaches beside replicas. */
const CPU_RATE = 3000;
const ATOM_JSON = 'application/vnd.svc.atom+json';
/** How often catching up is looked at, before a load starts. */
const POLL_MS = 20;

interface Node {
  server: Server;
  db: string;
  directory: string;
}

async function startNode(directory: string, prefix: string[], extra: string[]): Promise<Node> {
  const db = join(directory, 'db');
  const server = await startServer(['--no-node-snapshot', join(root, 'bin/run.js'), 'serve', '--db', db, '--index', join(directory, 'index'),
    '--http-port', '0', '--allow-anonymous-stream-access', ...extra], prefix);
  return { server, db, directory };
}

async function stopNode(node: Node): Promise<void> {
  await stop(node.server);
  rmSync(node.directory, { recursive: true, force: true });
}

/** Two new replicas of `leader`, returned once both hold the leader's log (the leader idle). */
async function startReplicas(directory: string, leader: Node, prefix: string[], round: number): Promise<Node[]> {
  const replicas = await Promise.all(Array.from({ length: REPLICAS }, (_, index) => startNode(join(directory, `replica-${round}-${index}`), prefix, ['--replica-of', leader.server.url])));
  const end = writerCheckpoint(leader.db);
  while (!replicas.every((replica) => writerCheckpoint(replica.db) >= end)) await sleep(POLL_MS);
  return replicas;
}

function spread(loads: Load[]): string {
  return loads.map((one) => Math.round(one.requestsPerSecond)).join(' / ');
}

async function appendEvent(url: string, stream: string): Promise<void> {
  const response = await fetch(`${url}/streams/${stream}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'svc-eventtype': 'BenchEvent', 'svc-eventid': crypto.randomUUID() }, body: '{"value":1}',
  });
  await response.arrayBuffer();
  if (response.status !== 201) throw new Error(`append to ${stream} answered ${response.status}`);
}

/** Reads `stream` on `url` by long polls until stopped; when each event number was first seen. */
function follow(url: string, stream: string, signal: AbortSignal): { seen: Map<number, number>; done: Promise<void> } {
  const seen = new Map<number, number>();
  const done = (async () => {
    let next = 0;
    while (!signal.aborted) {
      let response: Response;
      try {
        response = await fetch(`${url}/streams/${stream}/${next}/forward/100`, { headers: { accept: ATOM_JSON, 'svc-longpoll': '5' }, signal });
      } catch (error) {
        if (signal.aborted) return;
        throw error;
      }
      const now = performance.now();
      if (response.status !== 200) throw new Error(`reading ${stream} on a replica answered ${response.status}`);
      const feed = await response.json() as { entries: Array<{ title: string }> };
      for (const entry of feed.entries) {
        const number = Number.parseInt(entry.title, 10);
        if (!seen.has(number)) seen.set(number, now);
        next = Math.max(next, number + 1);
      }
    }
  })();
  return { seen, done };
}

/** Steady appends to the lag stream at `rate`; when each event number's 201 arrived. */
async function paced(url: string, rate: number): Promise<{ acknowledged: Map<number, number>; load: Load }> {
  const acknowledged = new Map<number, number>();
  const options = singleAppends(`${url}/streams/${LAG_STREAM}`, {});
  const [request] = options.requests as autocannon.Request[];
  request.onResponse = (status, _body, _context, headers) => {
    const location = headers?.location;
    const number = typeof location === 'string' ? Number(/\/(\d+)$/.exec(location)?.[1]) : NaN;
    if (status === 201 && Number.isSafeInteger(number)) acknowledged.set(number, performance.now());
  };
  const result = await load({ ...options, overallRate: rate, duration: LAG_SECONDS });
  return { acknowledged, load: result };
}

function lags(acknowledged: Map<number, number>, seen: Map<number, number>): { sorted: number[]; missing: number } {
  const values: number[] = [];
  let missing = 0;
  for (const [number, at] of acknowledged) {
    const read = seen.get(number);
    if (read === undefined) missing++;
    else values.push(Math.max(0, read - at));
  }
  return { sorted: values.sort((a, b) => a - b), missing };
}

async function measureLag(leader: Node, replicas: Node[], rate: number): Promise<void> {
  await appendEvent(leader.server.url, LAG_STREAM);
  const controller = new AbortController();
  const readers = replicas.map((replica) => follow(replica.server.url, LAG_STREAM, controller.signal));
  const { acknowledged, load: offered } = await paced(leader.server.url, rate);
  // Every acknowledged event read, or a few seconds for the ones that will not be.
  const last = Math.max(...acknowledged.keys());
  for (let waited = 0; waited < 5000 && !readers.every((reader) => reader.seen.has(last)); waited += POLL_MS) await sleep(POLL_MS);
  controller.abort();
  await Promise.all(readers.map((reader) => reader.done));
  readers.forEach((reader, index) => {
    const { sorted, missing } = lags(acknowledged, reader.seen);
    report(`replication lag p99, replica ${index + 1}`, percentile(sorted, 99), 'ms',
      `p50 ${percentile(sorted, 50).toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms, ${sorted.length} events at ${Math.round(offered.requestsPerSecond)} req/s offered ${rate}/s for ${LAG_SECONDS} s, ${missing} unread; target < 50 ms`);
  });
}

export async function replicationLoadBenchmarks(): Promise<void> {
  const { prefix, release } = process.env.SVC_BENCH_REPLICATION_UNPINNED === '1' ? { prefix: [], release: () => undefined } : pinning();
  // The replicas share the load generator's core (see above); unpinned where the leader is.
  const replicaPrefix = prefix.length > 0 ? ['taskset', '-c', '0'] : [];
  const placement = prefix.length > 0 ? `leader on cores ${prefix[2]}, replicas and load generator on core 0` : 'processes not pinned to cores';
  section(`replication under load (leader and ${REPLICAS} replicas as processes; ${placement})`);
  const directory = mkdtempSync(join(process.env.SVC_BENCH_DIR ?? tmpdir(), 'svcdb-bench-replication-load-'));
  try {
    const leader = await startNode(join(directory, 'leader'), prefix, []);
    try {
      const alone: Load[] = [];
      const followed: Load[] = [];
      const cpuAlone: number[] = [];
      const cpuFollowed: number[] = [];
      const appends = singleAppends(`${leader.server.url}/streams/bench-appends`, {});
      const measure = async (loads: Load[], cpu: number[]) => {
        loads.push(await load(appends));
        cpu.push(await cpuPerRequest(leader.server, appends, CPU_RATE));
      };
      for (let round = 0; round < ROUNDS; round++) {
        // Which goes first alternates: a load right after another (or after replicas caught up) may differ.
        if (round % 2 === 0) await measure(alone, cpuAlone);
        const replicas = await startReplicas(directory, leader, replicaPrefix, round);
        try {
          await measure(followed, cpuFollowed);
        } finally {
          await Promise.all(replicas.map(stopNode));
        }
        if (round % 2 === 1) await measure(alone, cpuAlone);
      }
      const none = median(alone.map((one) => one.requestsPerSecond));
      const two = median(followed.map((one) => one.requestsPerSecond));
      report('leader single appends, no replica', none, 'req/s', `median of ${spread(alone)}`);
      report(`leader single appends, ${REPLICAS} replicas following`, two, 'req/s',
        `median of ${spread(followed)}, ${(100 * two / none).toFixed(0)}% of no replica (target 90%); the replicas share the load generator's core`);
      // On a machine of two cores the replicas take the load generator's core, so req/s also
      // measures the generator. The leader's CPU per append says what following costs the leader.
      const cpuNone = median(cpuAlone);
      const cpuTwo = median(cpuFollowed);
      report('leader CPU per append, no replica', cpuNone, 'µs', `median of ${ROUNDS}, at ${CPU_RATE} req/s`);
      report(`leader CPU per append, ${REPLICAS} replicas following`, cpuTwo, 'µs',
        `median of ${ROUNDS}; the leader's capacity with replicas is ${(100 * cpuNone / cpuTwo).toFixed(0)}% of without`);
      const replicas = await startReplicas(directory, leader, replicaPrefix, ROUNDS);
      try {
        await measureLag(leader, replicas, Math.round(none / 2));
      } finally {
        await Promise.all(replicas.map(stopNode));
      }
    } finally {
      await stop(leader.server);
    }
  } finally {
    release();
    rmSync(directory, { recursive: true, force: true });
  }
}
