// A three-node cluster that loses members: with one follower killed, writes go on; with two of
// three nodes down, the last one acknowledges nothing (a coded 503 with Retry-After) and serves
// reads; when they return, writes resume and nothing acknowledged is missing anywhere.
import t from 'tap';
import { TestCluster, tryAppend } from '../helpers/cluster-processes.js';
import { startEtcdCluster } from '../helpers/etcd.js';
import { appendEvent, eventIds, waitForReplicas } from '../helpers/replication.js';
import { pollUntilAsync } from '../helpers/wait.js';

t.test('writes need a majority; reads do not', async (t) => {
  const etcd = await startEtcdCluster(t);
  const cluster = await TestCluster.start(t, etcd);
  const leader = await cluster.settled();
  const [first, second] = cluster.members.filter((member) => member !== leader);
  const acknowledged = [await appendEvent(leader.url, 'ledger', 100)];

  await first.kill();
  acknowledged.push(await appendEvent(leader.url, 'ledger', 100));
  t.pass('with one follower down, the leader and the other follower are a majority');

  await second.kill();
  // Nobody to make a majority with: refused within the time the leader waits for one.
  await pollUntilAsync('the lone node to refuse writes', async () => (await tryAppend(leader.url, 'ledger')).status === 503);
  const refused = await tryAppend(leader.url, 'ledger');
  t.equal(refused.status, 503, 'a write is refused');
  t.equal(refused.code, 'SVCDB_ERR_CLUSTER_NO_QUORUM', 'with the coded error');
  t.ok(Number(refused.retryAfter) >= 1, 'and Retry-After');
  // Refused writes may be in its log, after the acknowledged ones: they were written, then not confirmed.
  t.same((await eventIds(leader.url, 'ledger')).slice(0, acknowledged.length), acknowledged, 'reads are served: the acknowledged events, in order');

  await first.start(t);
  await second.start(t);
  const settledLeader = await cluster.settled('all three members back, one leading');
  acknowledged.push(await appendEvent(settledLeader.url, 'ledger', 100));
  const followers = cluster.members.filter((member) => member !== settledLeader);
  await waitForReplicas(settledLeader.directories, followers.map((member) => ({ directories: member.directories, url: member.url })));
  for (const member of cluster.members) {
    const served = await eventIds(member.url, 'ledger');
    t.same(acknowledged.filter((id) => !served.includes(id)), [], `${member.name} serves every acknowledged event`);
  }
});
