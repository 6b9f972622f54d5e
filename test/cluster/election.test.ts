/**
 * The leader election through a real three-member etcd: one leader among three candidates,
 * terms that only grow, a leader cut off from etcd that stops acknowledging before anyone else
 * can win, and the campaign rule keeping a node that is behind from winning.
 */
import t from 'tap';
import { clusterNode, settledLeader, type TestClusterNode } from '../helpers/cluster.js';
import { startEtcdCluster } from '../helpers/etcd.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { withDeadline } from '../helpers/wait.js';

async function startAll(nodes: readonly TestClusterNode[]): Promise<void> {
  await Promise.all(nodes.map(({ node }) => node.start()));
}

t.test('three candidates elect exactly one leader, and each re-election has a higher term', async (t) => {
  const etcd = await startEtcdCluster(t);
  const nodes = ['a', 'b', 'c'].map((id) => clusterNode(t, { endpoints: etcd.endpoints, id, clusterName: 'terms' }));
  await startAll(nodes);
  let leader = await settledLeader(nodes);
  t.equal(nodes.filter(({ node }) => node.election.isLeader).length, 1, 'exactly one leader');
  const terms = [leader.node.election.term];
  for (let round = 0; round < 4; round++) {
    await leader.node.election.resign();
    t.notOk(leader.node.election.mayAcknowledge(), 'a leader that resigned acknowledges nothing');
    leader = await settledLeader(nodes, `the leader of round ${round + 1}`);
    t.equal(nodes.filter(({ node }) => node.election.isLeader).length, 1, 'exactly one leader');
    terms.push(leader.node.election.term);
  }
  for (let index = 1; index < terms.length; index++) t.ok(terms[index] > terms[index - 1], `term ${terms[index]} follows ${terms[index - 1]}`);
});

t.test('a leader cut off from etcd stops acknowledging before another node wins', async (t) => {
  const etcd = await startEtcdCluster(t);
  const proxy = await TcpProxy.start(t, etcd.endpoints[0]);
  const cutOff = clusterNode(t, { endpoints: [proxy.url], id: 'a', clusterName: 'fence' });
  const others = ['b', 'c'].map((id) => clusterNode(t, { endpoints: etcd.endpoints, id, clusterName: 'fence' }));
  // With two of three nodes running, both must have published before either campaigns, and then
  // a (lowest id) is first; the third joins a cluster that has its leader.
  await startAll([cutOff, others[0]]);
  await settledLeader([cutOff, others[0]]);
  await startAll([others[1]]);
  t.equal((await settledLeader([cutOff, ...others])).node.election.leader?.id, 'a', 'the node behind the proxy leads');
  const oldTerm = cutOff.node.election.term;

  const order: string[] = [];
  cutOff.node.election.on('fenced', () => order.push('old leader fenced'));
  // One wait for whichever of the others wins: a wait per node would leave the loser's deadline pending.
  const successor = withDeadline(new Promise<{ term: number; oldLeaderMayAcknowledge: boolean }>((resolve) => {
    for (const { node } of others) {
      node.election.once('leader', (term: number) => {
        order.push('new leader elected');
        resolve({ term, oldLeaderMayAcknowledge: cutOff.node.election.mayAcknowledge() });
      });
    }
  }), 'another node to win the election');
  proxy.freeze();
  const won = await successor;
  t.notOk(won.oldLeaderMayAcknowledge, 'when the new leader won, the old one could not acknowledge');
  t.same(order, ['old leader fenced', 'new leader elected']);
  t.ok(won.term > oldTerm, 'the new term is higher');

  // Back in touch, the old leader learns that its lease is gone and follows.
  proxy.thaw();
  await settledLeader([cutOff, ...others], 'the old leader to follow the new one');
  t.notOk(cutOff.node.election.isLeader);
});

t.test('a node behind another does not win; the next in line does once the first leaves', async (t) => {
  const etcd = await startEtcdCluster(t);
  const behind = clusterNode(t, { endpoints: etcd.endpoints, id: 'a', clusterName: 'rule', writerCheckpoint: 100, epoch: 3, priority: 10 });
  const ahead = clusterNode(t, { endpoints: etcd.endpoints, id: 'b', clusterName: 'rule', writerCheckpoint: 200, epoch: 3 });
  const oldEpoch = clusterNode(t, { endpoints: etcd.endpoints, id: 'c', clusterName: 'rule', writerCheckpoint: 900, epoch: 2 });
  const nodes = [behind, ahead, oldEpoch];
  let behindLed = false;
  behind.node.election.on('leader', () => {
    behindLed = true;
  });
  // With two of three nodes running, both must have published before either campaigns: the node
  // that is behind starts first and has the higher priority, and still must not win.
  await behind.node.start();
  await ahead.node.start();
  t.equal((await settledLeader([behind, ahead])).node.election.leader?.id, 'b', 'the node with the furthest position in the newest epoch leads');
  await oldEpoch.node.start();
  t.equal((await settledLeader(nodes)).node.election.leader?.id, 'b', 'a node with a longer log from an older epoch does not take over');
  t.notOk(behindLed, 'the node behind never led');

  // b leaves: of a (epoch 3, position 100) and c (epoch 2, position 900), a holds the newer term.
  await ahead.node.close();
  t.equal((await settledLeader([behind, oldEpoch])).node.election.leader?.id, 'a');
});
