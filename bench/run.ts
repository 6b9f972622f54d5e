import { backupBenchmarks } from './backup.js';
import { clusterBenchmarks } from './cluster/cluster.js';
import { coldReadsBenchmarks } from './cold-reads/cold-reads.js';
import { consoleBenchmarks } from './console.js';
import { httpBenchmarks, pinning } from './http.js';
import { loginFloodBenchmark } from './login-flood.js';
import { peersBenchmarks } from './peers/peers.js';
import { projectionsBenchmarks } from './projections.js';
import { redactionBenchmarks } from './redaction.js';
import { replicationLoadBenchmarks } from './replication-load.js';
import { replicationBenchmarks } from './replication.js';
import { rewriteBenchmarks } from './rewrite.js';
import { scavengeBenchmarks } from './scavenge.js';
import { scavengeLoadBenchmarks } from './scavenge-load.js';
import { storageBenchmarks } from './storage.js';
import { subscriptionBenchmarks } from './subscriptions.js';

async function floodBenchmarks(): Promise<void> {
  const { prefix, release } = pinning();
  try {
    await loginFloodBenchmark(prefix);
  } finally {
    release();
  }
}

/** Benchmark groups; `npm run bench -- http` runs only the named ones. */
const groups: Record<string, () => Promise<void>> = {
  storage: storageBenchmarks,
  rewrite: rewriteBenchmarks,
  http: async () => {
    await httpBenchmarks();
    await floodBenchmarks();
  },
  backup: backupBenchmarks,
  replication: async () => {
    await replicationLoadBenchmarks();
    await replicationBenchmarks();
  },
  redaction: redactionBenchmarks,
  console: consoleBenchmarks,
  subscriptions: subscriptionBenchmarks,
  projections: projectionsBenchmarks,
  scavenge: scavengeBenchmarks,
  'scavenge-load': scavengeLoadBenchmarks,
  // Part of `http` too; by name it runs alone.
  'login-flood': floodBenchmarks,
  // Needs PostgreSQL and Redis installed (bench/README.md): only run when named.
  peers: peersBenchmarks,
  // Needs etcd installed (bench/README.md): only run when named.
  cluster: clusterBenchmarks,
  // Builds a log of gigabytes and needs three times that free on disk: only run when named.
  'cold-reads': coldReadsBenchmarks,
};

/** Groups that another group runs as well, that need peers or etcd installed, or gigabytes of disk: only run when named. */
const partOfAnother = new Set(['login-flood', 'peers', 'cluster', 'cold-reads']);

/** `npm run bench`: every benchmark, each beside the baseline it measures in the same run. */
async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !(name in groups));
  if (unknown.length > 0) throw new Error(`unknown benchmark group ${unknown.join(', ')}; groups: ${Object.keys(groups).join(', ')}`);
  process.stdout.write(`svcdb benchmarks on Node ${process.version}\n`);
  for (const [name, run] of Object.entries(groups)) {
    if (wanted.length === 0 ? !partOfAnother.has(name) : wanted.includes(name)) await run();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
