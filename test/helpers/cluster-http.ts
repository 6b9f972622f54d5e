/**
 * A real node serving HTTP as a member of a real cluster: a ClusterNode registered in the test's
 * etcd under the node's actual URL, and the node started in-process with its view of the cluster
 * (`cluster: node.view()`), as the cluster supervisor composes it.
 */
import type { Test } from 'tap';
import pino from 'pino';
import { ClusterNode } from '../../src/daemon/cluster/cluster-node.js';
import type { ConsoleAssets } from '../../src/daemon/services/console-assets.js';
import { clusterNode, settledLeader, testClusterOptions, type TestClusterNode } from './cluster.js';
import { startEtcdCluster, type EtcdCluster } from './etcd.js';
import { startNode } from './node.js';
import { freePort } from './replication.js';
import { withDeadline } from './wait.js';

export interface ClusterHttpNode {
  id: string;
  url: string;
  node: ClusterNode;
}

/** Starts the node and registers it; every member has the same position, so the lowest id is first in line. */
export async function startClusterHttpNode(
  t: Test, options: { endpoints: readonly string[]; id: string; clusterName: string; console?: ConsoleAssets },
): Promise<ClusterHttpNode> {
  // The URL the member registers is known before the node listens: the port is chosen first.
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const node = new ClusterNode({
    cluster: { ...testClusterOptions(options), advertiseHttpUrl: url }, id: options.id, logger: pino({ level: 'silent' }),
    position: () => ({ writerCheckpoint: 0, epoch: 0 }),
  });
  t.teardown(() => withDeadline(node.close(), `cluster node ${options.id} to close`));
  await startNode(t, { options: { httpPort: port }, cluster: node.view(), ...(options.console && { console: options.console }) });
  await node.start();
  return { id: options.id, url, node };
}

export interface ThreeMembers {
  etcd: EtcdCluster;
  /** The node that serves HTTP; it leads. */
  a: ClusterHttpNode;
  /** Next in line: its priority is higher than the others'. */
  b: TestClusterNode;
  c: TestClusterNode;
}

/**
 * `a` (serving HTTP) leading `b` and `c`, and `b` the one that wins when `a` resigns. The order is
 * what makes it certain: with `a` and `c` alone, both must publish before either campaigns and `a`
 * (the lower id) is first; `b` joins a cluster that has its leader, and its priority puts it ahead
 * of both once the leader key goes (the campaign rule, docs/cluster.md).
 */
export async function threeMembers(t: Test, clusterName: string, console?: ConsoleAssets): Promise<ThreeMembers> {
  const etcd = await startEtcdCluster(t);
  const a = await startClusterHttpNode(t, { endpoints: etcd.endpoints, id: 'a', clusterName, ...(console && { console }) });
  const c = clusterNode(t, { endpoints: etcd.endpoints, id: 'c', clusterName });
  await c.node.start();
  const aMember: TestClusterNode = { node: a.node, log: [], position: { writerCheckpoint: 0, epoch: 0 } };
  await settledLeader([aMember, c], 'a to lead a and c');
  const b = clusterNode(t, { endpoints: etcd.endpoints, id: 'b', clusterName, priority: 1 });
  await b.node.start();
  await settledLeader([aMember, b, c], 'b and c to follow a');
  return { etcd, a, b, c };
}
