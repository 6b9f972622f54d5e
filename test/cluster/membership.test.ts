/**
 * Membership through a real three-member etcd: every node registers itself and sees the others,
 * a published position reaches the others without one write per change, and a node whose process
 * dies disappears from every list once its lease lapses.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { Membership } from '../../src/daemon/cluster/membership.js';
import { clusterNode, nextEvent } from '../helpers/cluster.js';
import { startEtcdCluster } from '../helpers/etcd.js';
import { withDeadline } from '../helpers/wait.js';

const CHILD = fileURLToPath(new URL('../helpers/cluster-member-child.ts', import.meta.url));

const ids = (membership: Membership) => membership.members().map((member) => member.record.id);

async function membersBecome(membership: Membership, expected: string[], what: string): Promise<void> {
  if (JSON.stringify(ids(membership)) === JSON.stringify(expected)) return;
  await nextEvent(membership, 'change', what, () => JSON.stringify(ids(membership)) === JSON.stringify(expected));
}

t.test('every node registers under the cluster prefix and sees the others', async (t) => {
  const etcd = await startEtcdCluster(t);
  const nodes = ['a', 'b', 'c'].map((id) => clusterNode(t, { endpoints: etcd.endpoints, id, clusterName: 'members', writerCheckpoint: 7, epoch: 2 }));
  await Promise.all(nodes.map(({ node }) => node.membership.start()));
  for (const { node } of nodes) await membersBecome(node.membership, ['a', 'b', 'c'], 'all three members in every list');
  const seen = nodes[2].node.membership.members()[0].record;
  t.same(seen, { id: 'a', httpUrl: 'http://a.test:2113', state: 'Unknown', writerCheckpoint: 7, epoch: 2, priority: 0 });

  // Another cluster in the same etcd is not a member of this one.
  const stranger = clusterNode(t, { endpoints: etcd.endpoints, id: 'z', clusterName: 'other' });
  await stranger.node.membership.start();
  t.same(ids(stranger.node.membership), ['z']);
  t.same(ids(nodes[0].node.membership), ['a', 'b', 'c']);
});

t.test('a burst of position changes is one publication; the others see the last position', async (t) => {
  const etcd = await startEtcdCluster(t);
  const writer = clusterNode(t, { endpoints: etcd.endpoints, id: 'a', clusterName: 'publish' });
  const reader = clusterNode(t, { endpoints: etcd.endpoints, id: 'b', clusterName: 'publish' });
  await writer.node.membership.start();
  await reader.node.membership.start();
  await membersBecome(reader.node.membership, ['a', 'b'], 'the reader to see the writer');
  let puts = 0;
  reader.node.membership.on('change', () => puts++);
  const position = (membership: Membership) => membership.members().find((member) => member.record.id === 'a')?.record.writerCheckpoint;
  const arrived = nextEvent(reader.node.membership, 'change', 'the last position to reach the reader', () => position(reader.node.membership) === 1000);
  for (let step = 1; step <= 1000; step++) {
    writer.position.writerCheckpoint = step;
    writer.node.membership.positionChanged();
  }
  await arrived;
  t.equal(puts, 1, 'one record write for a thousand changes');
});

t.test('a member whose process is killed disappears once its lease lapses', async (t) => {
  const etcd = await startEtcdCluster(t);
  const watcher = clusterNode(t, { endpoints: etcd.endpoints, id: 'a', clusterName: 'expiry' });
  await watcher.node.membership.start();
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, etcd.endpoints.join(','), 'doomed', 'expiry'], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => child.kill('SIGKILL'));
  await withDeadline(once(child.stdout, 'data'), 'the child node to register');
  await membersBecome(watcher.node.membership, ['a', 'doomed'], 'the child in the member list');
  child.kill('SIGKILL');
  await withDeadline(once(child, 'exit'), 'the child to exit');
  await membersBecome(watcher.node.membership, ['a'], 'the killed member to disappear after its lease TTL');
  t.same(ids(watcher.node.membership), ['a']);
});
