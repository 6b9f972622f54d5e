/**
 * `npm run bench -- peers`: svcdb beside PostgreSQL and Redis on the same machine, workloads and
 * payload, with the same durability rule (every acknowledged event fsynced). Each round starts
 * every system afresh, one after the other, so drift on a shared machine falls on all alike;
 * the table gives the medians over the rounds. Peers that are not installed are left out.
 */
import { pinning } from '../http.js';
import { report, section } from '../measure.js';
import { postgresql } from './postgres.js';
import { redis } from './redis.js';
import { svcdb } from './svcdb.js';
import { comparisonTable, type Rounds } from './table.js';
import { measure, WORKLOADS, workName, type Result, type System } from './workloads.js';

const ROUNDS = Number(process.env.SVC_BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.SVC_BENCH_SECONDS ?? 3);
const WARM_UP_MS = 1000;

function note(result: Result): string {
  const syncs = result.syncsPerSecond === undefined ? 'syncs not counted' : `${Math.round(result.syncsPerSecond).toLocaleString('en-US')} syncs/s`;
  return `p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, ${syncs}, ${result.cpuUsPerEvent.toFixed(1)} µs server CPU/event, `
    + `load generator ${(result.loadGeneratorShare * 100).toFixed(0)}% of its core; ${result.shape}`;
}

/** One round of one system: started on a fresh directory, every workload, stopped. */
async function round(system: System, prefix: string[], number: number, results: Rounds): Promise<void> {
  const running = await system.start(prefix);
  try {
    // Not measured: the first requests after a start pay for cold caches (and svcdb's for JIT
    // compilation). Its streams are the 10-client run's, whose appends go on after these.
    await measure(running, { kind: 'single', clients: 10 }, WARM_UP_MS);
    for (const [index, work] of WORKLOADS.entries()) {
      const result = await measure(running, work, SECONDS * 1000);
      results[index].push(result);
      report(`${system.label}, ${workName(work)}, round ${number}`, result.eventsPerSecond, 'events/s', note(result));
    }
  } finally {
    await running.stop();
  }
}

async function compare(prefix: string[]): Promise<void> {
  const placement = prefix.length > 0 ? `load generator on core 0, servers on cores ${prefix[2]}` : 'processes not pinned to cores';
  section(`svcdb beside PostgreSQL and Redis (${ROUNDS} alternated rounds, ${SECONDS} s per workload; ${placement})`);
  const peers = [postgresql, redis].filter((peer) => {
    const missing = peer.missing();
    if (missing) process.stdout.write(`${missing}; the comparison goes on without it\n`);
    return missing === undefined;
  });
  const ours: Rounds = WORKLOADS.map(() => []);
  const theirs = new Map<string, Rounds>(peers.map((peer) => [peer.label, WORKLOADS.map(() => [])]));
  for (let number = 1; number <= ROUNDS; number++) {
    await round(svcdb, prefix, number, ours);
    for (const peer of peers) await round(peer, prefix, number, theirs.get(peer.label)!);
  }
  const batches = WORKLOADS.findIndex((work) => work.kind === 'batch');
  const shapes = [...theirs, ['svcdb', ours] as const].map(([label, rounds]) => `${label}: ${rounds[batches][0].shape}`).join('; ');
  process.stdout.write(`\nMedians of ${ROUNDS} round${ROUNDS === 1 ? '' : 's'} (batches are ${shapes}):\n\n${comparisonTable(ours, theirs)}`);
}

export async function peersBenchmarks(): Promise<void> {
  const { prefix, release } = pinning();
  try {
    await compare(prefix);
  } finally {
    release();
  }
}
