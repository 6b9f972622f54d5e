/**
 * The leader SIGKILLed while a replica follows it under load: the replica keeps serving what it
 * has, says in /info that the leader is unreachable, retries with backoff and logs that once,
 * not once per attempt. Once the leader is back on its address the replica follows again and
 * ends with the leader's bytes and every event the leader acknowledged: the leader only ever
 * ships what it made durable, so nothing the replica holds was lost by the leader.
 */
import t from 'tap';
import { ADMIN_AUTH } from '../helpers/auth.js';
import {
  appendEvent, compareLogs, freePort, missingEvents, nodeDirectories, nodeInfo, startLeader, startReplica, waitForReplicas, writerCheckpoint,
} from '../helpers/replication.js';
import { pollUntil, pollUntilAsync } from '../helpers/wait.js';

t.test('a replica outlives its leader\'s crash, then follows it again', async (t) => {
  const root = t.testdir();
  const leaderDirectories = nodeDirectories(root, 'leader');
  const replicaDirectories = nodeDirectories(root, 'replica');
  const port = String(await freePort());
  const first = await startLeader(t, leaderDirectories, ['--http-port', port]);
  const replica = await startReplica(t, replicaDirectories, first.url);

  const acknowledged = new Map<string, string[]>();
  let writing = true;
  const writers = Array.from({ length: 8 }, async (_, writer) => {
    const stream = `writer-${writer}`;
    acknowledged.set(stream, []);
    while (writing) {
      try {
        acknowledged.get(stream)!.push(await appendEvent(first.url, stream, 1000));
      } catch {
        return;
      }
    }
  });
  await pollUntil('the replica to hold 300 KiB', () => writerCheckpoint(replicaDirectories.db) > 300 * 1024, { intervalMs: 10 });
  await first.process.stop('SIGKILL');
  writing = false;
  await Promise.all(writers);

  await pollUntilAsync('the replica to report the leader unreachable after a few attempts', async () => {
    const info = await nodeInfo(replica.url);
    return info.replication?.connection === 'unreachable' && info.replication.reconnects >= 3;
  }, { intervalMs: 50 });
  const read = await fetch(`${replica.url}/streams/writer-0`, { headers: { authorization: ADMIN_AUTH, accept: 'application/vnd.svc.atom+json' } });
  t.equal(read.status, 200, 'the replica serves reads while its leader is down');
  await read.arrayBuffer();
  const unreachableLines = replica.process.logLines.filter((line) => String(line.msg).startsWith('the leader is unreachable'));
  t.equal(unreachableLines.length, 1, 'the unreachable leader is logged once, not once per attempt');

  const second = await startLeader(t, leaderDirectories, ['--http-port', port]);
  const after = await appendEvent(second.url, 'after-restart', 100);
  acknowledged.set('after-restart', [after]);
  const end = await waitForReplicas(leaderDirectories, [{ directories: replicaDirectories, url: replica.url }]);
  const comparison = compareLogs(leaderDirectories.db, replicaDirectories.db, end);
  t.same(comparison.different, [], 'the replica\'s chunks are the restarted leader\'s');
  t.same(await missingEvents(second.url, acknowledged), [], 'the restarted leader serves every event it acknowledged');
  t.same(await missingEvents(replica.url, acknowledged), [], 'the replica serves every event the leader acknowledged');
  t.equal(replica.process.logLines.filter((line) => line.msg === 'replication following').length, 2, 'it logged following twice: at start and after the leader came back');
});
