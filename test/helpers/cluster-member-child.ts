/**
 * A cluster node in a process of its own, for tests that kill it: argv is the etcd endpoints
 * (comma-separated), the node's id and the cluster name. It prints "registered" once its record
 * is in etcd and then runs until it is killed.
 */
import { silentLogger } from '../../src/common/logger.js';
import { ClusterNode } from '../../src/daemon/cluster/cluster-node.js';
import { testClusterOptions } from './cluster.js';

const [endpoints, id, clusterName] = process.argv.slice(2);
const node = new ClusterNode({
  cluster: testClusterOptions({ endpoints: endpoints.split(','), id, clusterName }),
  id,
  logger: silentLogger,
  position: () => ({ writerCheckpoint: 0, epoch: 0 }),
});
await node.membership.start();
process.stdout.write('registered\n');
