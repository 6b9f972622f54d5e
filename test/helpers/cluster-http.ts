/**
 * A real node serving HTTP as a member of a real cluster: a ClusterNode registered in the test's
 * etcd under the node's actual URL, and the node started in-process with its view of the cluster
 * (`cluster: node.view()`), as the cluster supervisor composes it.
 */
import type { Test } from 'tap';
import pino from 'pino';
import { ClusterNode } from '../../src/daemon/cluster/cluster-node.js';
import { testClusterOptions } from './cluster.js';
import { startNode } from './node.js';
import { freePort } from './replication.js';
import { withDeadline } from './wait.js';

export interface ClusterHttpNode {
  id: string;
  url: string;
  node: ClusterNode;
}

/** Starts the node and registers it; every member has the same position, so the lowest id is first in line. */
export async function startClusterHttpNode(t: Test, options: { endpoints: readonly string[]; id: string; clusterName: string }): Promise<ClusterHttpNode> {
  // The URL the member registers is known before the node listens: the port is chosen first.
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const node = new ClusterNode({
    cluster: { ...testClusterOptions(options), advertiseHttpUrl: url }, id: options.id, logger: pino({ level: 'silent' }),
    position: () => ({ writerCheckpoint: 0, epoch: 0 }),
  });
  t.teardown(() => withDeadline(node.close(), `cluster node ${options.id} to close`));
  await startNode(t, { options: { httpPort: port }, cluster: node.view() });
  await node.start();
  return { id: options.id, url, node };
}
