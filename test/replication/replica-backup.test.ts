/**
 * Backups may be taken from a read-only replica: `svcdb backup` (full, then differential) of a
 * running replica's directories, restored with `svcdb restore`, gives a node that starts as a
 * leader, serves every event the leader acknowledged before the backup, and accepts writes; or,
 * restored again with --replica-of, follows the leader from where the backup ends.
 */
import t from 'tap';
import { join } from 'node:path';
import { dataArgs, runJson, type BackupJson } from '../helpers/backup.js';
import {
  appendConcurrently, appendEvent, eventIds, missingEvents, nodeDirectories, nodeInfo, startLeader, startReplica, waitForReplicas,
} from '../helpers/replication.js';

function merge(into: Map<string, string[]>, more: Map<string, string[]>): void {
  for (const [stream, ids] of more) into.set(stream, [...(into.get(stream) ?? []), ...ids]);
}

t.test('a full and a differential backup of a replica restore to a writable leader with every event', async (t) => {
  const root = t.testdir();
  const leaderDirectories = nodeDirectories(root, 'leader');
  const replicaDirectories = nodeDirectories(root, 'replica');
  const destination = join(root, 'backup');
  const leader = await startLeader(t, leaderDirectories);
  await startReplica(t, replicaDirectories, leader.url);

  const acknowledged = await appendConcurrently(leader.url, 4, 40, 1000);
  await waitForReplicas(leaderDirectories, [{ directories: replicaDirectories }]);
  const full = await runJson<BackupJson>(['backup', destination, ...dataArgs(join(root, 'replica'))]);
  t.equal(full.code, 0, `full backup of the running replica exits 0 ${full.exit.stderr}`);
  t.equal(full.json.kind, 'full');

  merge(acknowledged, await appendConcurrently(leader.url, 4, 40, 1000));
  const end = await waitForReplicas(leaderDirectories, [{ directories: replicaDirectories }]);
  const differential = await runJson<BackupJson>(['backup', destination, '--differential', ...dataArgs(join(root, 'replica'))]);
  t.equal(differential.code, 0, `differential backup of the running replica exits 0 ${differential.exit.stderr}`);
  t.equal(differential.json.kind, 'differential');
  t.ok(differential.json.filesCopied > 0, `it copied what the replica received since (${differential.json.filesCopied} files)`);
  t.ok(differential.json.filesSkipped > 0, 'and kept what it had');
  t.ok(differential.json.writerAtStart >= end, 'up to the replica\'s writer checkpoint');

  const restoredRoot = join(root, 'restored');
  const restore = await runJson(['restore', destination, ...dataArgs(restoredRoot)]);
  t.equal(restore.code, 0, `restore exits 0 ${restore.exit.stderr}`);
  const restored = await startLeader(t, nodeDirectories(root, 'restored'));
  t.equal((await nodeInfo(restored.url)).state, 'leader', 'the restored node starts as a leader');
  t.same(await missingEvents(restored.url, acknowledged), [], 'it serves every event acknowledged before the backup');
  const written = await appendEvent(restored.url, 'writer-0', 100);
  const ids = await eventIds(restored.url, 'writer-0');
  t.equal(ids.length, acknowledged.get('writer-0')!.length + 1, 'and it is writable: an append follows the replicated events');
  t.equal(ids.at(-1), written);

  const asReplica = await runJson(['restore', destination, ...dataArgs(join(root, 'restored-replica'))]);
  t.equal(asReplica.code, 0, `restore for a replica exits 0 ${asReplica.exit.stderr}`);
  const follower = await startReplica(t, nodeDirectories(root, 'restored-replica'), leader.url);
  const later = await appendEvent(leader.url, 'writer-1', 100);
  await waitForReplicas(leaderDirectories, [{ directories: nodeDirectories(root, 'restored-replica'), url: follower.url }]);
  t.equal((await eventIds(follower.url, 'writer-1')).at(-1), later, 'restored with --replica-of, it follows the leader from where the backup ends');
});
