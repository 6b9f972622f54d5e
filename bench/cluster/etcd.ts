/**
 * A three-member etcd (Debian's etcd-server, /usr/bin/etcd) on loopback for the cluster bench:
 * free ports, data directories under the bench's scratch directory, etcd's default heartbeat
 * (100 ms) and election timeout (1 s), which lets etcd grant leases down to 2 s. Members are
 * started together (none is ready before a majority runs) and ready once each reports itself
 * healthy.
 */
import { execa, type ResultPromise } from 'execa';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { firstExecutable, freePort } from '../peers/child.js';

const ETCD_BINARY = '/usr/bin/etcd';
const MEMBERS = 3;
const HEARTBEAT_MS = 100;
const ELECTION_TIMEOUT_MS = 1000;
const HEALTHY_WITHIN_MS = 30_000;
const POLL_MS = 50;

export interface Etcd {
  /** The members' client URLs, as --etcd-endpoints takes them. */
  endpoints: string[];
  pids: number[];
  stop(): Promise<void>;
}

/** Why etcd cannot run here (with the line that installs it), or undefined. */
export function etcdMissing(): string | undefined {
  return firstExecutable([ETCD_BINARY]) ? undefined : `${ETCD_BINARY} not found (apt-get install -y etcd-server)`;
}

async function healthy(clientUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${clientUrl}/health`, { signal: AbortSignal.timeout(1000) });
    return ((await response.json()) as { health?: string }).health === 'true';
  } catch {
    return false;
  }
}

/** Starts the members under `directory`, each after `prefix` (the cores it may use), and waits until all are healthy. */
export async function startEtcd(directory: string, prefix: string[]): Promise<Etcd> {
  const ports: number[] = [];
  for (let index = 0; index < 2 * MEMBERS; index++) ports.push(await freePort());
  const clientUrls = Array.from({ length: MEMBERS }, (_, index) => `http://127.0.0.1:${ports[2 * index]}`);
  const peerUrls = Array.from({ length: MEMBERS }, (_, index) => `http://127.0.0.1:${ports[2 * index + 1]}`);
  const initialCluster = peerUrls.map((url, index) => `m${index}=${url}`).join(',');
  const children: ResultPromise[] = clientUrls.map((clientUrl, index) => {
    const [file, ...args] = [...prefix, ETCD_BINARY,
      '--name', `m${index}`, '--data-dir', join(directory, `etcd-m${index}`),
      '--listen-client-urls', clientUrl, '--advertise-client-urls', clientUrl,
      '--listen-peer-urls', peerUrls[index], '--initial-advertise-peer-urls', peerUrls[index],
      '--initial-cluster', initialCluster, '--initial-cluster-state', 'new', '--initial-cluster-token', `svcdb-bench-${process.pid}-${ports[0]}`,
      '--heartbeat-interval', String(HEARTBEAT_MS), '--election-timeout', String(ELECTION_TIMEOUT_MS),
      '--logger', 'zap', '--log-level', 'warn'];
    return execa(file, args, { stdin: 'ignore', stdout: 'ignore', stderr: 'ignore', reject: false, forceKillAfterDelay: false });
  });
  const stop = async () => {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children);
  };
  const deadline = performance.now() + HEALTHY_WITHIN_MS;
  while (!(await Promise.all(clientUrls.map(healthy))).every(Boolean)) {
    if (performance.now() > deadline) {
      await stop();
      throw new Error(`etcd was not healthy within ${HEALTHY_WITHIN_MS} ms`);
    }
    await sleep(POLL_MS);
  }
  return { endpoints: clientUrls, pids: children.map((child) => child.pid!), stop };
}

/**
 * Whether `key` exists, as the first of `endpoints` that answers says (through etcd's JSON
 * gateway); undefined when none answers.
 */
export async function keyExists(endpoints: readonly string[], key: string): Promise<boolean | undefined> {
  for (const endpoint of endpoints) {
    try {
      const response = await fetch(`${endpoint}/v3/kv/range`, {
        method: 'POST', signal: AbortSignal.timeout(1000), body: JSON.stringify({ key: Buffer.from(key).toString('base64'), count_only: true }),
      });
      if (!response.ok) continue;
      // etcd's JSON leaves a count of 0 out.
      return Number(((await response.json()) as { count?: string }).count ?? 0) > 0;
    } catch {
      continue; // This member does not answer: ask the next.
    }
  }
  return undefined;
}
