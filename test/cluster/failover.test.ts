// A three-node cluster of real processes on a real three-member etcd: the leader is SIGKILLed, a
// follower takes over in a new term (an epoch numbered by it), writes resume there, and the old
// leader, started again, follows the new one. Every acknowledged event is on every node in
// order, and every node's log is byte for byte the leader's.
import t from 'tap';
import { TestCluster, type ClusterMember } from '../helpers/cluster-processes.js';
import { startEtcdCluster } from '../helpers/etcd.js';
import { appendEvent, compareLogs, eventIds, waitForReplicas } from '../helpers/replication.js';

async function appendMany(member: ClusterMember, stream: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(await appendEvent(member.url, stream, 200));
  return ids;
}

async function epochNumber(member: ClusterMember): Promise<number> {
  const response = await fetch(`${member.url}/gossip`);
  const gossip = await response.json() as { members: Array<{ epochNumber: number; state: string }> };
  return gossip.members.find((entry) => entry.state === 'Leader')?.epochNumber ?? gossip.members[0].epochNumber;
}

t.test('a follower takes over from a killed leader and the old leader rejoins as a follower', async (t) => {
  const etcd = await startEtcdCluster(t);
  const cluster = await TestCluster.start(t, etcd);
  const first = await cluster.settled();
  const before = await appendMany(first, 'orders', 40);
  const firstEpoch = await epochNumber(first);

  await first.kill();
  const second = await cluster.settled('a new leader among the two members left');
  t.not(second, first, 'another member leads');
  t.ok(await epochNumber(second) > firstEpoch, 'the new leader wrote an epoch of a later term');
  const after = await appendMany(second, 'orders', 40);

  await first.start(t);
  t.equal(await cluster.settled('the old leader following the new one'), second, 'the new leader keeps leading');
  const followers = cluster.members.filter((member) => member !== second);
  const end = await waitForReplicas(second.directories, followers.map((member) => ({ directories: member.directories, url: member.url })));
  for (const member of cluster.members) {
    t.same(await eventIds(member.url, 'orders'), [...before, ...after], `${member.name} serves every acknowledged event, in order`);
  }
  for (const member of followers) {
    t.same(compareLogs(second.directories.db, member.directories.db, end).different, [], `${member.name}'s log is the leader's, byte for byte`);
  }
});
