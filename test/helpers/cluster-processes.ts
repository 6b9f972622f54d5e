/**
 * A svcdb cluster of real `svcdb serve` processes on loopback, on a real etcd (etcd.ts): each
 * member on a port of its own that it keeps across restarts (it registers its URL in etcd), in
 * directories of its own. Members can be killed, frozen (SIGSTOP) and started again; the helper
 * finds the leader by asking every running member's /info.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { ADMIN_AUTH } from './auth.js';
import { startServer, type RunningServer } from './cli.js';
import type { EtcdCluster } from './etcd.js';
import { freePort, nodeDirectories, type NodeDirectories, TEST_CHUNK_BYTES } from './replication.js';
import { pollUntilAsync } from './wait.js';

/** The shortest lease etcd grants with the test cluster's timings is 1 s; 2 s leaves room. */
export const CLUSTER_LEASE_TTL_MS = 2000;

export class ClusterMember {
  server: RunningServer | undefined;
  /** The last process started, running or not: its log explains a failure. */
  lastServer: RunningServer | undefined;
  frozen = false;

  constructor(readonly name: string, readonly directories: NodeDirectories, readonly port: number, private readonly args: readonly string[]) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  async start(t: Test): Promise<void> {
    if (this.server) throw new Error(`${this.name} is already running`);
    this.server = await startServer(t, { dbPath: this.directories.db, args: ['--index', this.directories.index, '--http-port', String(this.port), ...this.args] });
    this.lastServer = this.server;
    // SVC_TEST_CLUSTER_LOGS=<dir>: every member's whole log is kept there, for a failure to be read.
    const logs = process.env.SVC_TEST_CLUSTER_LOGS;
    if (logs) {
      const server = this.server;
      t.teardown(() => appendFileSync(join(logs, `${this.name}.log`), server.process.stdout));
    }
  }

  /** SIGKILL (or another signal) and the exit awaited. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const server = this.server;
    if (!server) return;
    if (this.frozen) this.thaw();
    this.server = undefined;
    await server.process.stop(signal);
  }

  freeze(): void {
    this.signal('SIGSTOP');
    this.frozen = true;
  }

  thaw(): void {
    this.signal('SIGCONT');
    this.frozen = false;
  }

  private signal(signal: NodeJS.Signals): void {
    const pid = this.server?.process.child.pid;
    if (pid === undefined) throw new Error(`${this.name} is not running`);
    process.kill(pid, signal);
  }

  /** Its /info state, or undefined when it does not answer within a second. */
  async state(): Promise<string | undefined> {
    if (!this.server || this.frozen) return undefined;
    try {
      const response = await fetch(`${this.url}/info`, { signal: AbortSignal.timeout(1000) });
      return ((await response.json()) as { state: string }).state;
    } catch {
      return undefined;
    }
  }
}

export interface TestClusterOptions {
  size?: number;
  /** More flags for every member. */
  args?: readonly string[];
}

export class TestCluster {
  private constructor(readonly members: readonly ClusterMember[]) {}

  /** Starts every member and waits until one leads and the others follow it. */
  static async start(t: Test, etcd: EtcdCluster, options: TestClusterOptions = {}): Promise<TestCluster> {
    const size = options.size ?? 3;
    // Not t.testdir(): that empties the directory, where the test's etcd keeps its data.
    const root = t.testdirName;
    const name = `c${process.pid}-${Math.floor(Math.random() * 1e9)}`;
    const members: ClusterMember[] = [];
    for (let index = 0; index < size; index++) {
      const port = await freePort();
      members.push(new ClusterMember(`n${index}`, nodeDirectories(join(root, 'nodes'), `n${index}`), port, [
        '--cluster-size', String(size), '--etcd-endpoints', etcd.endpoints.join(','), '--cluster-name', name,
        '--advertise-http-url', `http://127.0.0.1:${port}`, '--leader-lease-ttl-ms', String(CLUSTER_LEASE_TTL_MS),
        '--chunk-size', String(TEST_CHUNK_BYTES), '--stream-existence-filter-size', '0', ...(options.args ?? []),
      ]));
    }
    const cluster = new TestCluster(members);
    await Promise.all(members.map((member) => member.start(t)));
    await cluster.settled();
    return cluster;
  }

  /** The one running member that says it leads, once every other running member follows. */
  async settled(description = 'one leader and every other running member following it'): Promise<ClusterMember> {
    let leader: ClusterMember | undefined;
    let seen = '';
    await pollUntilAsync(description, async () => {
      const states = await Promise.all(this.members.map(async (member) => ({ member, state: await member.state() })));
      seen = states.map(({ member, state }) => `${member.name}: ${state ?? (member.running ? 'no answer' : 'stopped')}`).join(', ');
      const running = states.filter(({ member }) => member.running && !member.frozen);
      const leaders = running.filter(({ state }) => state === 'leader');
      leader = leaders[0]?.member;
      return leaders.length === 1 && running.every(({ state }) => state === 'leader' || state === 'follower');
    }, { intervalMs: 50 }).catch((error: unknown) => {
      throw new Error(`${String(error)}\nstates: ${seen}\n${this.recentLog()}`);
    });
    return leader!;
  }

  /** The members' last log lines about the cluster and replication, for a failure's message. */
  recentLog(lines = 25): string {
    return this.members.map((member) => {
      const log = member.lastServer?.process.logLines
        .filter((line) => ['cluster', 'replication', 'storage'].includes(String(line.component)) || /stop|start|listening/.test(String(line.msg)))
        .slice(-lines).map((line) => `  ${JSON.stringify(line)}`).join('\n');
      return `${member.name}:\n${log ?? '  (never started)'}`;
    }).join('\n');
  }

  /** The member that leads now, waiting for one if there is none. */
  async leader(): Promise<ClusterMember> {
    let leader: ClusterMember | undefined;
    await pollUntilAsync('a running member that leads', async () => {
      for (const member of this.members) if (await member.state() === 'leader') leader = member;
      return leader !== undefined;
    }, { intervalMs: 50 });
    return leader!;
  }
}

export interface AppendAnswer {
  /** 0 when the node did not answer (it is switching roles, or down). */
  status: number;
  code?: string;
  retryAfter: string | null;
}

/** One append of a new event, whatever the answer: the status, the error code, Retry-After. */
export async function tryAppend(url: string, stream: string): Promise<AppendAnswer> {
  let response: Response;
  try {
    response = await fetch(`${url}/streams/${stream}`, {
      method: 'POST', redirect: 'manual',
      headers: { authorization: ADMIN_AUTH, 'content-type': 'application/json', 'svc-eventtype': 'tested', 'svc-eventid': crypto.randomUUID() },
      body: '{"acknowledged":"perhaps"}',
    });
  } catch {
    return { status: 0, retryAfter: null };
  }
  const text = await response.text();
  const code = response.status >= 400 ? (JSON.parse(text) as { code?: string }).code : undefined;
  return { status: response.status, ...(code ? { code } : {}), retryAfter: response.headers.get('retry-after') };
}
