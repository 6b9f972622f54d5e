/**
 * Throughput of single-event appends by 50 clients, the peers' workload and load generator: a
 * single node beside the leader of a three-node cluster, whose 201 waits for a follower's fsync.
 * Besides the leader's own CPU, the followers' and etcd's CPU per event say what the rest of the
 * cluster spends on each write.
 */
import { report } from '../measure.js';
import { treeCpuSeconds } from '../peers/process-cpu.js';
import { groupCommits, open } from '../peers/svcdb.js';
import { measure, type Result, type RunningSystem, type Work } from '../peers/workloads.js';

export const WORK: Work = { kind: 'single', clients: 50 };
const WARM_UP: Work = { kind: 'single', clients: 10 };
const WARM_UP_MS = 1000;

export interface Measured {
  result: Result;
  /** CPU µs per event of other processes (the followers, etcd), by label. */
  othersCpuUsPerEvent: Record<string, number>;
}

/** The leader of a cluster as the peers' measure() takes a server. */
export function leaderSystem(url: string, pid: number): RunningSystem {
  return {
    pid,
    open: async (work) => open(url, work),
    syncs: () => groupCommits(url),
    stop: async () => undefined,
  };
}

const cpuOf = (pids: readonly number[]) => pids.reduce((sum, pid) => sum + treeCpuSeconds(pid), 0);

/** Warms `system` up (not measured: cold caches, JIT), then measures WORK for `seconds`. */
export async function measureAppends(system: RunningSystem, seconds: number, others: Record<string, readonly number[]> = {}): Promise<Measured> {
  await measure(system, WARM_UP, WARM_UP_MS);
  const before = Object.fromEntries(Object.entries(others).map(([label, pids]) => [label, cpuOf(pids)]));
  const result = await measure(system, WORK, seconds * 1000);
  const events = result.eventsPerSecond * seconds;
  const othersCpuUsPerEvent = Object.fromEntries(Object.entries(others).map(([label, pids]) => [label, ((cpuOf(pids) - before[label]) * 1e6) / events]));
  return { result, othersCpuUsPerEvent };
}

function note(measured: Measured, placement: string): string {
  const { result } = measured;
  const others = Object.entries(measured.othersCpuUsPerEvent).map(([label, us]) => `, ${label} ${us.toFixed(1)} µs CPU/event`).join('');
  return `p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, ${Math.round(result.syncsPerSecond ?? 0).toLocaleString('en-US')} group commits/s, `
    + `${result.cpuUsPerEvent.toFixed(1)} µs server CPU/event${others}, load generator ${(result.loadGeneratorShare * 100).toFixed(0)}% of its core; ${placement}`;
}

const TARGET_SHARE = 0.6;

/** One line per system, then the table of both and the cluster's share of the single node. */
export function reportThroughput(single: Measured, leader: Measured, placement: { single: string; leader: string }): void {
  report('single node, single appends, 50 clients', single.result.eventsPerSecond, 'events/s', note(single, placement.single));
  report('cluster leader, single appends, 50 clients', leader.result.eventsPerSecond, 'events/s', note(leader, placement.leader));
  const share = leader.result.eventsPerSecond / single.result.eventsPerSecond;
  const rows: Array<[string, (result: Result) => number, number]> = [
    ['events/s', (result) => result.eventsPerSecond, 0],
    ['p50 ms', (result) => result.p50Ms, 2],
    ['p99 ms', (result) => result.p99Ms, 2],
    ['leader CPU µs/event', (result) => result.cpuUsPerEvent, 1],
  ];
  const shown = (value: number, digits: number) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const lines = ['| single appends, 50 clients | single node | cluster leader | cluster/single |', '|---|---:|---:|---:|',
    ...rows.map(([name, read, digits]) => `| ${name} | ${shown(read(single.result), digits)} | ${shown(read(leader.result), digits)} | ${(read(leader.result) / read(single.result)).toFixed(2)}× |`)];
  process.stdout.write(`\n${lines.join('\n')}\n\nThe cluster leader takes ${(share * 100).toFixed(0)}% of the single node's events/s `
    + `(target ≥ ${TARGET_SHARE * 100}%: ${share >= TARGET_SHARE ? 'met' : 'missed'}).\n\n`);
}
