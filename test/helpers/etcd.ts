/**
 * A real three-member etcd cluster (Debian's etcd-server, /usr/bin/etcd) on loopback for the
 * cluster tests: free ports, data directories under the test's directory, fast heartbeats and
 * elections so that losing and regaining quorum takes a fraction of a second. A member can be
 * stopped and started again (its data directory is kept, so it rejoins as itself) or frozen with
 * SIGSTOP, which is how a test makes etcd lose quorum or become unreachable.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Test } from 'tap';
import { pollUntilAsync, withDeadline } from './wait.js';

export const ETCD_BINARY = '/usr/bin/etcd';
/** Test timings: a heartbeat every 50 ms and an election after 500 ms without one. */
const HEARTBEAT_MS = 50;
const ELECTION_TIMEOUT_MS = 500;
/** Time a member has to exit after SIGTERM before it gets SIGKILL. */
const STOP_GRACE_MS = 5000;

interface MemberPorts {
  client: number;
  peer: number;
}

export class EtcdMember {
  private child: ChildProcess | undefined;
  private frozen = false;
  /** What the member wrote on stderr, for the message of a failed start. */
  private output = '';

  constructor(readonly name: string, readonly clientUrl: string, private readonly args: readonly string[]) {}

  get running(): boolean {
    return this.child !== undefined;
  }

  start(): void {
    if (this.child) throw new Error(`etcd member ${this.name} is already running`);
    const child = spawn(ETCD_BINARY, this.args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-4000);
    });
    child.on('exit', () => {
      // The pipe could outlive the process if a descendant held it; the test run must not wait on it.
      child.stderr?.destroy();
      if (this.child === child) this.child = undefined;
    });
    this.child = child;
    this.frozen = false;
  }

  /** SIGTERM, then SIGKILL if the member has not exited within the grace time. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    if (this.frozen) this.thaw();
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    try {
      await exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGSTOP: the process keeps its sockets open and answers nothing, as a hung machine does. */
  freeze(): void {
    if (!this.child || this.frozen) return;
    this.child.kill('SIGSTOP');
    this.frozen = true;
  }

  thaw(): void {
    if (!this.child || !this.frozen) return;
    this.child.kill('SIGCONT');
    this.frozen = false;
  }

  /** Whether the member answers /health with health "true" (it has a leader and quorum). */
  async healthy(): Promise<boolean> {
    try {
      const response = await fetch(`${this.clientUrl}/health`, { signal: AbortSignal.timeout(1000) });
      const body = (await response.json()) as { health?: string };
      return body.health === 'true';
    } catch {
      return false;
    }
  }

  get lastOutput(): string {
    return this.output;
  }
}

export interface EtcdCluster {
  members: readonly EtcdMember[];
  /** The members' client URLs, as a node's --etcd-endpoints takes them. */
  endpoints: string[];
  /** Resolves once every running member reports itself healthy. */
  waitHealthy(): Promise<void>;
  stopAll(): Promise<void>;
}

/** Ports that were free a moment ago: each is bound to port 0 and released together. */
async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  try {
    return await Promise.all(servers.map(async (server) => {
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      return (server.address() as AddressInfo).port;
    }));
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

function memberArgs(name: string, dataDir: string, ports: MemberPorts, initialCluster: string, token: string): string[] {
  const clientUrl = `http://127.0.0.1:${ports.client}`;
  const peerUrl = `http://127.0.0.1:${ports.peer}`;
  return [
    '--name', name,
    '--data-dir', dataDir,
    '--listen-client-urls', clientUrl,
    '--advertise-client-urls', clientUrl,
    '--listen-peer-urls', peerUrl,
    '--initial-advertise-peer-urls', peerUrl,
    '--initial-cluster', initialCluster,
    '--initial-cluster-state', 'new',
    '--initial-cluster-token', token,
    '--heartbeat-interval', String(HEARTBEAT_MS),
    '--election-timeout', String(ELECTION_TIMEOUT_MS),
    '--logger', 'zap',
    '--log-level', 'warn',
  ];
}

/**
 * Starts a three-member etcd in `<testdir>/etcd`, waits until all members are healthy, and stops
 * every member at teardown.
 */
export async function startEtcdCluster(t: Test, size = 3): Promise<EtcdCluster> {
  const root = join(t.testdir(), 'etcd');
  const ports = await freePorts(2 * size);
  const memberPorts = Array.from({ length: size }, (_, index) => ({ client: ports[2 * index], peer: ports[2 * index + 1] }));
  const initialCluster = memberPorts.map((port, index) => `m${index}=http://127.0.0.1:${port.peer}`).join(',');
  // The members of one cluster share a token; it differs from every other test's cluster.
  const token = `svcdb-test-${process.pid}-${ports[0]}`;
  const members = memberPorts.map((port, index) => new EtcdMember(
    `m${index}`, `http://127.0.0.1:${port.client}`, memberArgs(`m${index}`, join(root, `m${index}`), port, initialCluster, token)));
  const cluster: EtcdCluster = {
    members,
    endpoints: members.map((member) => member.clientUrl),
    waitHealthy: async () => {
      const running = members.filter((member) => member.running);
      await pollUntilAsync('every running etcd member to report itself healthy',
        async () => (await Promise.all(running.map((member) => member.healthy()))).every(Boolean), { intervalMs: 50 })
        .catch((error: unknown) => {
          throw new Error(`${String(error)}\n${running.map((member) => `${member.name}: ${member.lastOutput.slice(-1000)}`).join('\n')}`);
        });
    },
    stopAll: async () => {
      await Promise.all(members.map((member) => member.stop()));
    },
  };
  t.teardown(() => withDeadline(cluster.stopAll(), 'the etcd members to stop'));
  for (const member of members) member.start();
  await cluster.waitHealthy();
  return cluster;
}
