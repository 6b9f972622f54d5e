/**
 * The cluster as operators see it, with a leader and a read-only replica as real processes: the
 * leader's /gossip lists the replica as a member in the wire shape (state, address, checkpoint as
 * sent) and its lag; `svcdb status` on the replica exits 0 while it follows and prints its lag,
 * and exits 22 with SVCDB_ERR_CLIENT_LEADER_UNREACHABLE once the leader is gone.
 */
import t from 'tap';
import { ExitCode } from '../../src/cli/exit-codes.js';
import type { GossipDocument } from '../../src/daemon/services/gossip.js';
import { runCli } from '../helpers/cli.js';
import { pollUntilAsync } from '../helpers/wait.js';
import { appendEvent, nodeDirectories, nodeInfo, startLeader, startReplica, waitForReplicas } from '../helpers/replication.js';

async function gossip(url: string): Promise<GossipDocument> {
  const response = await fetch(`${url}/gossip`);
  return await response.json() as GossipDocument;
}

t.test('the leader lists its replica; status on the replica tells its lag, then its lost leader', async (t) => {
  const root = t.testdir();
  const leaderDirectories = nodeDirectories(root, 'leader');
  const replicaDirectories = nodeDirectories(root, 'replica');
  const leader = await startLeader(t, leaderDirectories);
  const alone = await gossip(leader.url);
  t.equal(alone.members.length, 1, 'a leader without replicas lists itself only');
  t.notOk('replicas' in alone, 'and no replicas');

  const replica = await startReplica(t, replicaDirectories, leader.url);
  for (let i = 0; i < 20; i++) await appendEvent(leader.url, 'viewed', 500);
  const end = await waitForReplicas(leaderDirectories, [{ directories: replicaDirectories, url: replica.url }]);

  // What the leader sent reaches its end once the replica has it all.
  let view = await gossip(leader.url);
  await pollUntilAsync('the leader to list its replica at its end', async () => {
    view = await gossip(leader.url);
    return view.members.length === 2 && view.members[1].writerCheckpoint === view.members[0].writerCheckpoint;
  });
  const [self, follower] = view.members;
  t.equal(self.state, 'Leader');
  t.same(Object.keys(follower), Object.keys(self), 'the replica is a member in the same wire shape');
  t.equal(follower.state, 'ReadOnlyReplica', 'in state ReadOnlyReplica once it had all the leader had');
  t.equal(follower.isReadOnlyReplica, true);
  t.equal(follower.httpEndPointIp, '127.0.0.1', 'at the address of its connection');
  t.ok(follower.httpEndPointPort > 0);
  t.not(follower.instanceId, self.instanceId);
  t.ok(follower.writerCheckpoint >= end, `its checkpoint as sent is the leader's (${follower.writerCheckpoint})`);
  t.match(view.replicas, [{ instanceId: follower.instanceId, state: 'ReadOnlyReplica', lagBytes: 0, lagSeconds: 0, remoteIp: '127.0.0.1' }], 'with its lag');

  // The heartbeat that tells the replica the leader's end may come after the records themselves.
  await pollUntilAsync('the replica to hear the leader\'s end', async () => (await nodeInfo(replica.url)).replication?.leaderWriterCheckpoint === end);
  const text = await runCli(['status', '--url', replica.url]);
  t.equal(text.code, ExitCode.success, text.stderr);
  t.equal(text.stdout, `${replica.url}: readonlyreplica of ${leader.url} (following), lag 0 B, 0 s, svcdb 0.1.0\n`);
  const json = await runCli(['status', '--url', replica.url, '--json']);
  t.equal(json.code, ExitCode.success, json.stderr);
  t.match(JSON.parse(json.stdout), {
    url: replica.url, state: 'readonlyreplica', serving: true,
    replication: { leaderUrl: leader.url, connection: 'following', writerCheckpoint: end, leaderWriterCheckpoint: end, lagBytes: 0, lagSeconds: 0 },
  }, '--json has the state and the lag');

  await leader.process.stop('SIGTERM');
  await pollUntilAsync('the replica to find its leader unreachable', async () => (await nodeInfo(replica.url)).replication?.connection === 'unreachable');
  const lost = await runCli(['status', '--url', replica.url]);
  t.equal(lost.code, ExitCode.leaderUnreachable, 'exit 22: serves, but cannot reach its leader');
  // Cut off, it no longer knows whether it has all the leader has: it catches up again.
  t.ok(lost.stdout.startsWith(`${replica.url}: catchingup of ${leader.url} (unreachable), lag `), `the state line says it: ${lost.stdout}`);
  t.match(lost.stderr, /cannot reach its leader.*SVCDB_ERR_CLIENT_LEADER_UNREACHABLE/s);
  const lostJson = await runCli(['status', '--url', replica.url, '--json']);
  t.equal(lostJson.code, ExitCode.leaderUnreachable);
  t.match(JSON.parse(lostJson.stdout), { error: { code: 'SVCDB_ERR_CLIENT_LEADER_UNREACHABLE', exitCode: 22, details: { leaderUrl: leader.url } } });
});
