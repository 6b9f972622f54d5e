/**
 * A replica started empty against a leader that already holds many chunks, one of them
 * scavenged, catches up: the completed chunks arrive as whole files (the scavenged one as the
 * leader has it), the ongoing one as records, and it ends with the leader's bytes and events.
 */
import t from 'tap';
import { readdirSync } from 'node:fs';
import { ADMIN_AUTH } from '../helpers/auth.js';
import {
  appendConcurrently, appendEvent, compareLogs, missingEvents, nodeDirectories, nodeInfo, startLeader, startReplica, waitForReplicas,
} from '../helpers/replication.js';
import { pollUntilAsync } from '../helpers/wait.js';

t.test('an empty replica catches up with a leader of many chunks, a scavenged one among them', async (t) => {
  const root = t.testdir();
  const leaderDirectories = nodeDirectories(root, 'leader');
  const replicaDirectories = nodeDirectories(root, 'replica');
  const leader = await startLeader(t, leaderDirectories);
  // A stream whose events a scavenge removes: written first, then deleted.
  for (let i = 0; i < 40; i++) await appendEvent(leader.url, 'doomed', 1000);
  const deleted = await fetch(`${leader.url}/streams/doomed`, { method: 'DELETE', headers: { authorization: ADMIN_AUTH } });
  t.equal(deleted.status, 204, 'the doomed stream is deleted');
  const acknowledged = await appendConcurrently(leader.url, 8, 60, 2000);
  const scavenge = await fetch(`${leader.url}/admin/scavenge?threshold=-1`, { method: 'POST', headers: { authorization: ADMIN_AUTH } });
  t.equal(scavenge.status, 200, 'a scavenge starts on the leader');
  const { scavengeId } = await scavenge.json() as { scavengeId: string };
  await pollUntilAsync('the scavenge to complete', async () => {
    const status = await fetch(`${leader.url}/admin/scavenge/${scavengeId}`, { headers: { authorization: ADMIN_AUTH } });
    return (await status.json() as { phase?: string }).phase === 'Completed';
  }, { intervalMs: 50 });
  const files = readdirSync(leaderDirectories.db);
  t.ok(files.some((name) => /^chunk-\d{6}\.0*[1-9]\d*$/.test(name)), 'the leader holds a scavenged chunk (a version above 0)');
  // A few events after the scavenge, in the ongoing chunk.
  for (let i = 0; i < 5; i++) await appendEvent(leader.url, 'after', 100);

  const replica = await startReplica(t, replicaDirectories, leader.url);
  const end = await waitForReplicas(leaderDirectories, [{ directories: replicaDirectories, url: replica.url }]);
  const comparison = compareLogs(leaderDirectories.db, replicaDirectories.db, end);
  t.ok(comparison.completedChunks > 10, `${comparison.completedChunks} completed chunks compared`);
  t.same(comparison.different, [], 'every completed chunk (the scavenged one too) and the ongoing chunk\'s bytes are the leader\'s');
  t.same(await missingEvents(replica.url, acknowledged), [], 'the replica serves every acknowledged event');
  const doomed = await fetch(`${replica.url}/streams/doomed`, { headers: { authorization: ADMIN_AUTH, accept: 'application/vnd.svc.atom+json' } });
  await doomed.arrayBuffer();
  t.equal(doomed.status, 404, 'the deleted stream is deleted on the replica too');
  t.equal((await nodeInfo(replica.url)).state, 'readonlyreplica');
});
