/**
 * The svcdb nodes of a three-node cluster as `svcdb serve` processes on loopback: each on a port
 * of its own that it keeps across restarts (it registers its URL in etcd), in a directory of its
 * own. A member can be SIGKILLed and started again; its cluster log lines are kept with their
 * times, so that a failover can be taken apart into lease lapse, election and reopen.
 */
import type { ResultPromise } from 'execa';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort, startUntilReady } from '../peers/child.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const SETTLED_WITHIN_MS = 60_000;
const POLL_MS = 50;
/** The node logs this line each time a composition listens (at the start and after each role switch). */
const LISTENING = /"msg":"listening"/;

/** The cluster's name in etcd, and the key its leader holds (docs/cluster.md, Keys in etcd). */
const CLUSTER_NAME = `bench-${process.pid}`;
export const LEADER_KEY = `/svcdb/${CLUSTER_NAME}/leader`;

/** Besides its `cluster:` lines: each composition listening, and a follower connected to its leader. */
const KEPT_MESSAGES = new Set(['listening', 'replication following']);

/** A log line of a member's: its message and its time (epoch ms, the node's clock). */
export interface LogEvent {
  msg: string;
  time: number;
}

function clusterEvent(line: string): LogEvent | undefined {
  let parsed: { msg?: unknown; time?: unknown };
  try {
    parsed = JSON.parse(line) as { msg?: unknown; time?: unknown };
  } catch {
    return undefined; // Not a JSON line.
  }
  if (typeof parsed.msg !== 'string' || typeof parsed.time !== 'number') return undefined;
  if (!parsed.msg.startsWith('cluster:') && !KEPT_MESSAGES.has(parsed.msg)) return undefined;
  return { msg: parsed.msg, time: parsed.time };
}

export class Member {
  private child: ResultPromise | undefined;
  /** Its cluster lines and KEPT_MESSAGES lines, over all its starts. */
  readonly events: LogEvent[] = [];

  constructor(readonly name: string, private readonly directory: string, readonly port: number, private readonly args: readonly string[]) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  get pid(): number {
    if (!this.child?.pid) throw new Error(`${this.name} is not running`);
    return this.child.pid;
  }

  /** Starts the node after `prefix` (the cores it may use) and returns once it listens. */
  async start(prefix: string[]): Promise<void> {
    if (this.child) throw new Error(`${this.name} is already running`);
    const { child } = await startUntilReady([...prefix, process.execPath, '--no-node-snapshot', join(root, 'bin/run.js'), 'serve',
      '--db', join(this.directory, 'db'), '--index', join(this.directory, 'index'), '--http-port', String(this.port),
      '--allow-anonymous-stream-access', ...this.args], LISTENING, (line) => {
      const event = clusterEvent(line);
      if (event) this.events.push(event);
    });
    this.child = child;
  }

  /** Sends `signal` and waits for the exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    child.kill(signal);
    await child;
  }

  /** Its /info state (leader, follower, unknown), or undefined when it does not answer. */
  async state(): Promise<string | undefined> {
    if (!this.child) return undefined;
    try {
      const response = await fetch(`${this.url}/info`, { signal: AbortSignal.timeout(1000) });
      return ((await response.json()) as { state?: string }).state;
    } catch {
      return undefined;
    }
  }

  /** The first line logged with `msg` at or after `since` (epoch ms). */
  firstEvent(msg: string, since: number): LogEvent | undefined {
    return this.events.find((event) => event.msg === msg && event.time >= since);
  }
}

export interface ClusterSettings {
  etcdEndpoints: string[];
  leaseTtlMs: number;
  /** The cores a member starts on. */
  prefix: string[];
}

/** Three members under `directory`, started together; they elect a leader among themselves. */
export async function startMembers(directory: string, settings: ClusterSettings): Promise<Member[]> {
  const members: Member[] = [];
  for (let index = 0; index < 3; index++) {
    const port = await freePort();
    members.push(new Member(`node${index + 1}`, join(directory, `node${index + 1}`), port, [
      '--cluster-size', '3', '--etcd-endpoints', settings.etcdEndpoints.join(','), '--cluster-name', CLUSTER_NAME,
      '--advertise-http-url', `http://127.0.0.1:${port}`, '--leader-lease-ttl-ms', String(settings.leaseTtlMs),
    ]));
  }
  await Promise.all(members.map((member) => member.start(settings.prefix)));
  return members;
}

/** The one running member that leads, once every other running member follows. */
export async function settled(members: readonly Member[]): Promise<Member> {
  const deadline = performance.now() + SETTLED_WITHIN_MS;
  let seen = '';
  for (;;) {
    const running = members.filter((member) => member.running);
    const states = await Promise.all(running.map((member) => member.state()));
    const leaders = running.filter((_, index) => states[index] === 'leader');
    if (leaders.length === 1 && states.every((state) => state === 'leader' || state === 'follower')) return leaders[0];
    seen = running.map((member, index) => `${member.name}: ${states[index] ?? 'no answer'}`).join(', ');
    if (performance.now() > deadline) throw new Error(`no settled cluster within ${SETTLED_WITHIN_MS} ms (${seen})`);
    await sleep(POLL_MS);
  }
}
