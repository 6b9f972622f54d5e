/**
 * A running replica whose leader is replaced, on the same address, by a node with another log (a
 * leader restored from an older backup, or another node): at its next handshake the replica finds
 * records the leader does not have, sets truncate.chk to the common position and stops with the
 * coded error, since an open log cannot be cut. Started again (as its service manager does), it
 * cuts its log back, follows the new leader and ends with that leader's bytes and none of the
 * events it held before.
 */
import t from 'tap';
import {
  appendConcurrently, compareLogs, eventIds, freePort, missingEvents, nodeDirectories, startLeader, startReplica, waitForReplicas,
} from '../helpers/replication.js';

t.test('a replica whose leader comes back with another log stops, cuts its own at the next start and follows', async (t) => {
  const root = t.testdir();
  const firstDirectories = nodeDirectories(root, 'first-leader');
  const secondDirectories = nodeDirectories(root, 'second-leader');
  const replicaDirectories = nodeDirectories(root, 'replica');
  const port = String(await freePort());

  const first = await startLeader(t, firstDirectories, ['--http-port', port]);
  const replica = await startReplica(t, replicaDirectories, first.url);
  const before = await appendConcurrently(first.url, 4, 25, 1000);
  await waitForReplicas(firstDirectories, [{ directories: replicaDirectories, url: replica.url }]);
  t.same(await missingEvents(replica.url, before), [], 'the replica first serves the first leader\'s events');
  await first.process.stop('SIGTERM');

  const second = await startLeader(t, secondDirectories, ['--http-port', port]);
  const after = await appendConcurrently(second.url, 2, 10, 500);
  const exit = await replica.process.exited;
  t.not(exit.code, 0, `the replica stops with an error (exit code ${exit.code})`);
  t.match(exit.stderr, /SVCDB_ERR_REPLICATION_DIVERGED/, 'and says its log differs from the leader\'s');
  t.ok(replica.process.logLines.some((line) => String(line.msg).startsWith('the replica holds records the leader does not have')), 'it logged why');

  const restarted = await startReplica(t, replicaDirectories, second.url);
  await restarted.process.waitForLog((line) => line.msg === 'truncated the log to truncate.chk', { description: 'the cut of the replica\'s log at its start' });
  const end = await waitForReplicas(secondDirectories, [{ directories: replicaDirectories, url: restarted.url }]);
  const comparison = compareLogs(secondDirectories.db, replicaDirectories.db, end);
  t.same(comparison.different, [], 'the replica\'s chunks are the second leader\'s');
  t.same(await missingEvents(restarted.url, after), [], 'it serves the second leader\'s events');
  for (const stream of before.keys()) {
    const ids = new Set(await eventIds(restarted.url, stream));
    t.notOk(before.get(stream)!.some((id) => ids.has(id)), `and none of the first leader's events in ${stream}`);
  }
});
