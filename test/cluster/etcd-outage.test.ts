// A three-node svcdb cluster on a three-member etcd that loses members: one etcd member killed
// changes nothing (etcd keeps its quorum); etcd stopped entirely makes the leader refuse writes
// once its lease may have lapsed (a coded 503) while every node serves reads; etcd back, the
// cluster takes writes again by itself, and nothing acknowledged is missing.
import t from 'tap';
import { TestCluster, tryAppend } from '../helpers/cluster-processes.js';
import { startEtcdCluster } from '../helpers/etcd.js';
import { appendEvent, eventIds } from '../helpers/replication.js';
import { pollUntilAsync } from '../helpers/wait.js';

t.test('etcd losing a member changes nothing; etcd gone stops writes, not reads; etcd back, writes resume', async (t) => {
  const etcd = await startEtcdCluster(t);
  const cluster = await TestCluster.start(t, etcd);
  const leader = await cluster.settled();
  const acknowledged = [await appendEvent(leader.url, 'audit', 100)];

  await etcd.members[0].stop();
  for (let i = 0; i < 5; i++) acknowledged.push(await appendEvent(leader.url, 'audit', 100));
  t.equal(await cluster.settled('the same leader with one etcd member down'), leader, 'one etcd member down: the leader keeps leading and acknowledging');

  await etcd.stopAll();
  await pollUntilAsync('the leader to refuse writes once its lease may have lapsed', async () => (await tryAppend(leader.url, 'audit')).status === 503);
  t.equal((await tryAppend(leader.url, 'audit')).code, 'SVCDB_ERR_CLUSTER_NO_QUORUM', 'writes are refused with the coded error');
  for (const member of cluster.members) {
    t.same((await eventIds(member.url, 'audit')).slice(0, acknowledged.length), acknowledged, `${member.name} serves reads during the outage`);
  }

  for (const member of etcd.members) member.start();
  await etcd.waitHealthy();
  const back = await cluster.settled('a leader once etcd is back');
  await pollUntilAsync('writes acknowledged again', async () => (await tryAppend(back.url, 'audit')).status === 201);
  acknowledged.push(await appendEvent(back.url, 'audit', 100));
  const served = await eventIds(back.url, 'audit');
  t.same(acknowledged.filter((id) => !served.includes(id)), [], 'every acknowledged event is there after the outage');
});
