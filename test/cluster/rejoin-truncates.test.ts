// A leader whose followers died writes an event it cannot get acknowledged (its client gets a
// 503); it is killed, the followers come back, one takes over and writes on; the old leader, started again, cuts
// those never-acknowledged records from its log (truncate.chk) and follows: it serves none of
// them, and its log is the new leader's, byte for byte.
import t from 'tap';
import { ADMIN_AUTH } from '../helpers/auth.js';
import { TestCluster } from '../helpers/cluster-processes.js';
import { startEtcdCluster } from '../helpers/etcd.js';
import { appendEvent, compareLogs, eventIds, waitForReplicas } from '../helpers/replication.js';

t.test('an old leader rejoining cuts the records the cluster never acknowledged', async (t) => {
  const etcd = await startEtcdCluster(t);
  const cluster = await TestCluster.start(t, etcd);
  const first = await cluster.settled();
  const followers = cluster.members.filter((member) => member !== first);
  const acknowledged = [await appendEvent(first.url, 'orders', 100)];

  // Killed followers receive nothing more: the leader writes (their last reports are still
  // fresh), then waits in vain for a majority.
  for (const member of followers) await member.kill();
  const lonely = crypto.randomUUID();
  const response = await fetch(`${first.url}/streams/orders`, {
    method: 'POST',
    headers: { authorization: ADMIN_AUTH, 'content-type': 'application/json', 'svc-eventtype': 'tested', 'svc-eventid': lonely },
    body: '{"acknowledged":false}',
  });
  const refusal = await response.json() as { code: string };
  t.equal(response.status, 503, 'the write is not acknowledged');
  t.equal(refusal.code, 'SVCDB_ERR_CLUSTER_NO_QUORUM', 'for want of a majority');
  t.ok((await eventIds(first.url, 'orders')).includes(lonely), 'yet the leader holds it in its log');

  await first.kill();
  for (const member of followers) await member.start(t);
  const second = await cluster.settled('a new leader among the followers');
  acknowledged.push(await appendEvent(second.url, 'orders', 100));

  await first.start(t);
  await cluster.settled('the old leader following');
  const others = cluster.members.filter((member) => member !== second);
  const end = await waitForReplicas(second.directories, others.map((member) => ({ directories: member.directories, url: member.url })));
  t.same(await eventIds(first.url, 'orders'), acknowledged, 'the old leader serves the acknowledged events and not the one it alone held');
  t.ok(first.lastServer?.process.logLines.some((line) => line.msg === 'truncated the log to truncate.chk'), 'it cut its log back');
  t.same(compareLogs(second.directories.db, first.directories.db, end).different, [], 'its log is the new leader\'s, byte for byte');
});
