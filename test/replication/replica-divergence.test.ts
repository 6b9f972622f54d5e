/**
 * A node that holds a log of its own, started as a replica of another leader, shares no epoch
 * with it: at start it cuts its log back to the common position through truncate.chk and a
 * reopen (as a restore does), rebuilds its index, then copies the leader's log and ends with
 * the leader's bytes, and none of its own events.
 */
import t from 'tap';
import {
  appendConcurrently, appendEvent, compareLogs, eventIds, missingEvents, nodeDirectories, startLeader, startReplica, waitForReplicas,
} from '../helpers/replication.js';

t.test('a replica whose log the leader never had cuts it back and follows', async (t) => {
  const root = t.testdir();
  const leaderDirectories = nodeDirectories(root, 'leader');
  const replicaDirectories = nodeDirectories(root, 'replica');
  const former = await startLeader(t, replicaDirectories);
  for (let i = 0; i < 100; i++) await appendEvent(former.url, 'own', 1000);
  await former.process.stop('SIGTERM');

  const leader = await startLeader(t, leaderDirectories);
  const acknowledged = await appendConcurrently(leader.url, 4, 30, 1000);
  const replica = await startReplica(t, replicaDirectories, leader.url);
  await replica.process.waitForLog((line) => line.msg === 'truncated the log to truncate.chk', { description: 'the cut of the replica\'s own log' });
  const end = await waitForReplicas(leaderDirectories, [{ directories: replicaDirectories, url: replica.url }]);
  const comparison = compareLogs(leaderDirectories.db, replicaDirectories.db, end);
  t.same(comparison.different, [], 'the replica\'s chunks are the leader\'s');
  t.same(await missingEvents(replica.url, acknowledged), [], 'the replica serves the leader\'s events');
  t.same(await eventIds(replica.url, 'own'), [], 'and none of its own');
});
