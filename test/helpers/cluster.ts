/**
 * Cluster nodes for the tests of src/daemon/cluster: each a ClusterNode with its own etcd
 * connection, short test timings, a position the test sets, and the log lines it wrote.
 */
import type { Test } from 'tap';
import type { Logger } from '../../src/common/logger.js';
import { ClusterNode } from '../../src/daemon/cluster/cluster-node.js';
import type { ClusterOptions } from '../../src/daemon/cluster/cluster-options.js';
import { pollUntil, withDeadline } from './wait.js';

/** The shortest lease etcd grants with the test cluster's timings is 1 s; 2 s leaves room. */
export const TEST_LEASE_TTL_MS = 2000;

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields: object;
}

/** A logger that keeps every line, for tests that check what was logged. */
export function recordingLogger(entries: LogEntry[] = []): Logger & { entries: LogEntry[] } {
  const write = (level: LogEntry['level']) => (fields: object, message = '') => {
    entries.push({ level, message, fields });
  };
  const logger = { entries, debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error'), child: () => logger };
  return logger;
}

export interface TestClusterNode {
  node: ClusterNode;
  log: LogEntry[];
  position: { writerCheckpoint: number; epoch: number };
}

export interface TestNodeOptions {
  endpoints: readonly string[];
  id: string;
  clusterName: string;
  clusterSize?: number;
  priority?: number;
  writerCheckpoint?: number;
  epoch?: number;
}

export function testClusterOptions(options: TestNodeOptions): ClusterOptions {
  return Object.freeze({
    clusterSize: options.clusterSize ?? 3,
    etcdEndpoints: options.endpoints,
    clusterName: options.clusterName,
    advertiseHttpUrl: `http://${options.id}.test:2113`,
    leaderLeaseTtlMs: TEST_LEASE_TTL_MS,
    nodePriority: options.priority ?? 0,
    driftMarginMs: 500,
    publishIntervalMs: 50,
    requestTimeoutMs: 500,
  });
}

/** Makes a node (not started); it is closed at teardown. */
export function clusterNode(t: Test, options: TestNodeOptions): TestClusterNode {
  const position = { writerCheckpoint: options.writerCheckpoint ?? 0, epoch: options.epoch ?? 0 };
  const logger = recordingLogger();
  const node = new ClusterNode({ cluster: testClusterOptions(options), id: options.id, logger, position: () => ({ ...position }) });
  t.teardown(() => withDeadline(node.close(), `cluster node ${options.id} to close`));
  return { node, log: logger.entries, position };
}

/** Resolves the next time `emitter` emits `event` and `check` holds. */
export function nextEvent<T extends unknown[]>(emitter: NodeJS.EventEmitter, event: string, what: string, check: (...args: T) => boolean = () => true): Promise<T> {
  return withDeadline(new Promise<T>((resolve) => {
    const listener = (...args: unknown[]) => {
      if (!check(...(args as T))) return;
      emitter.off(event, listener);
      resolve(args as T);
    };
    emitter.on(event, listener);
  }), what);
}

/** Waits until one node leads and may acknowledge and every other node names it; returns it. */
export async function settledLeader(nodes: readonly TestClusterNode[], what = 'one leader that every node knows'): Promise<TestClusterNode> {
  let leader: TestClusterNode | undefined;
  await pollUntil(what, () => {
    const leaders = nodes.filter(({ node }) => node.election.isLeader);
    if (leaders.length !== 1 || !leaders[0].node.election.mayAcknowledge()) return false;
    leader = leaders[0];
    const id = leader.node.election.leader?.id;
    return id !== undefined && nodes.every(({ node }) => node.election.leader?.id === id);
  }, { intervalMs: 20 });
  return leader!;
}
