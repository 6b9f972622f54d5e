/**
 * `npm run bench -- cluster`: a three-node cluster on a three-member etcd, all on this machine.
 *
 * - Throughput: single-event appends by 50 clients against a single `svcdb serve` node and
 *   against the cluster's leader, in the same run for the same time (target: the leader at least
 *   60% of the single node).
 * - Failover: with a few writers appending, the leader is SIGKILLed, SVC_BENCH_FAILOVER_ROUNDS
 *   times; the time from the SIGKILL to the first 201 from the new leader (target: below the
 *   lease TTL, SVC_BENCH_LEASE_TTL_MS, + 2 s).
 *
 * Where `taskset` exists, as in replication-load: the single node and the cluster's leader get
 * the cores other than the first to themselves; the load generator (this process), the
 * followers and etcd share the first, as followers and etcd on other machines would take nothing
 * from the leader's cores. A member is placed when it is found leading, after every election.
 * SVC_BENCH_CLUSTER_UNPINNED=1 leaves every process to the scheduler.
 */
import { execaSync } from 'execa';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pinning } from '../http.js';
import { section } from '../measure.js';
import { scratchDirectory } from '../peers/child.js';
import { svcdb } from '../peers/svcdb.js';
import { etcdMissing, keyExists, startEtcd } from './etcd.js';
import { measureFailover } from './failover.js';
import { LEADER_KEY, settled, startMembers, type Member } from './members.js';
import { leaderSystem, measureAppends, reportThroughput, type Measured } from './throughput.js';

const SECONDS = Number(process.env.SVC_BENCH_SECONDS ?? 3);
const FAILOVER_ROUNDS = Number(process.env.SVC_BENCH_FAILOVER_ROUNDS ?? 5);
const LEASE_TTL_MS = Number(process.env.SVC_BENCH_LEASE_TTL_MS ?? 5000);
const FOLLOWER_CORES = '0';

interface Placement {
  /** The command prefix of the single node; a leader is moved to the same cores. */
  serverPrefix: string[];
  /** The command prefix of etcd and of a member that starts (it leads only later, if at all). */
  followerPrefix: string[];
  describe: string;
  /** Moves the leader to the server cores and every other running member to the followers'. */
  place(leader: Member, members: readonly Member[]): void;
  release(): void;
}

const moveTo = (cores: string, pid: number) => void execaSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore', reject: false });

function placement(): Placement {
  const { prefix, release } = process.env.SVC_BENCH_CLUSTER_UNPINNED === '1' ? { prefix: [], release: () => undefined } : pinning();
  if (prefix.length === 0) {
    return { serverPrefix: [], followerPrefix: [], describe: 'processes not pinned to cores', place: () => undefined, release };
  }
  const serverCores = prefix[2];
  return {
    serverPrefix: prefix,
    followerPrefix: ['taskset', '-c', FOLLOWER_CORES],
    describe: `single node and cluster leader on cores ${serverCores}; load generator, followers and etcd on core ${FOLLOWER_CORES}`,
    place: (leader, members) => {
      for (const member of members) if (member.running) moveTo(member === leader ? serverCores : FOLLOWER_CORES, member.pid);
    },
    release,
  };
}

async function singleNode(where: Placement): Promise<Measured> {
  const node = await svcdb.start(where.serverPrefix);
  try {
    return await measureAppends(node, SECONDS);
  } finally {
    await node.stop();
  }
}

async function cluster(directory: string, where: Placement, single: Measured): Promise<void> {
  const etcd = await startEtcd(directory, where.followerPrefix);
  const members: Member[] = [];
  try {
    members.push(...await startMembers(directory, { etcdEndpoints: etcd.endpoints, leaseTtlMs: LEASE_TTL_MS, prefix: where.followerPrefix }));
    const leader = await settled(members);
    where.place(leader, members);
    const followers = members.filter((member) => member !== leader).map((member) => member.pid);
    const measured = await measureAppends(leaderSystem(leader.url, leader.pid), SECONDS, { followers, etcd: etcd.pids });
    reportThroughput(single, measured, { single: 'single node', leader: `${leader.name} leading` });
    await measureFailover(members, {
      rounds: FAILOVER_ROUNDS,
      leaseTtlMs: LEASE_TTL_MS,
      leaderKeyExists: () => keyExists(etcd.endpoints, LEADER_KEY),
      restart: (member) => member.start(where.followerPrefix),
      place: (next) => where.place(next, members),
    });
  } finally {
    await Promise.all(members.map((member) => member.stop()));
    await etcd.stop();
  }
}

export async function clusterBenchmarks(): Promise<void> {
  const missing = etcdMissing();
  if (missing) {
    section('cluster');
    process.stdout.write(`${missing}; the cluster bench needs it and is left out\n`);
    return;
  }
  const where = placement();
  const directory = scratchDirectory('cluster');
  try {
    section(`three-node cluster on a three-member etcd (${SECONDS} s per run, lease TTL ${LEASE_TTL_MS} ms; ${where.describe})`);
    const single = await singleNode(where);
    await cluster(join(directory, 'cluster'), where, single);
  } finally {
    where.release();
    rmSync(directory, { recursive: true, force: true });
  }
}
