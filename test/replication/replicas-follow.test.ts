/**
 * A leader and two read-only replicas as real processes: while 24 writers append to the leader
 * (several megabytes, across dozens of 64 KiB chunks), both replicas follow; once the writers
 * stop, each has every acknowledged event, every completed chunk file is byte for byte the
 * leader's, and the ongoing chunk holds the same bytes up to writer.chk. A long poll on a
 * replica wakes for an append made on the leader.
 */
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { ADMIN_AUTH } from '../helpers/auth.js';
import type { RunningServer } from '../helpers/cli.js';
import { pollUntilAsync } from '../helpers/wait.js';
import {
  appendConcurrently, appendEvent, compareLogs, missingEvents, nodeDirectories, nodeInfo, recordBytes, startLeader, startReplica, waitForReplicas,
} from '../helpers/replication.js';

const WRITERS = 24;
const EVENTS_EACH = 60;
const DATA_BYTES = 1500;

t.test('two replicas end with every acknowledged event and the leader\'s bytes', async (t) => {
  const root = t.testdir();
  const leaderDirectories = nodeDirectories(root, 'leader');
  const replicaDirectories = [nodeDirectories(root, 'replica-1'), nodeDirectories(root, 'replica-2')];
  const leader = await startLeader(t, leaderDirectories);
  const replicas: RunningServer[] = [];
  for (const directories of replicaDirectories) replicas.push(await startReplica(t, directories, leader.url));

  const acknowledged = await appendConcurrently(leader.url, WRITERS, EVENTS_EACH, DATA_BYTES);
  const end = await waitForReplicas(leaderDirectories, replicaDirectories.map((directories, i) => ({ directories, url: replicas[i].url })));
  t.ok(end > 30 * 64 * 1024, `the log spans many chunks (${end} bytes)`);

  for (const [i, replica] of replicas.entries()) {
    const comparison = compareLogs(leaderDirectories.db, replicaDirectories[i].db, end);
    t.ok(comparison.completedChunks >= 30, `replica ${i + 1} has ${comparison.completedChunks} completed chunks`);
    t.same(comparison.different, [], `replica ${i + 1}: completed chunks and the ongoing chunk's bytes are the leader's`);
    t.same(await missingEvents(replica.url, acknowledged), [], `replica ${i + 1} serves every acknowledged event`);
    const info = await nodeInfo(replica.url);
    t.equal(info.state, 'readonlyreplica', `replica ${i + 1} says it follows with all there is`);
    t.equal(info.replication?.lagBytes, 0, `replica ${i + 1} reports no lag in bytes`);
  }
  t.equal((await nodeInfo(leader.url)).state, 'leader');
  const metric = async (url: string, name: string) => {
    const response = await fetch(`${url}/metrics`, { headers: { authorization: ADMIN_AUTH } });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`/metrics of ${url} answered ${response.status}: ${text}`);
    return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  };
  t.equal(await metric(leader.url, 'svcdb_replication_replicas'), 2, '/metrics on the leader counts the two replicas');
  // At least the records (log positions also count the free tails of chunks, which are not sent).
  const records = recordBytes(leaderDirectories.db, end);
  const sent = await metric(leader.url, 'svcdb_replication_sent_bytes_total');
  t.ok(sent >= 2 * records, `and the bytes sent to them (${sent} for ${records} bytes of records)`);
  t.equal(await metric(replicas[0].url, 'svcdb_replication_lag_bytes'), 0, '/metrics on a replica gives its lag in bytes');
  const received = await metric(replicas[0].url, 'svcdb_replication_received_bytes_total');
  t.ok(received >= records, `and the bytes it received (${received})`);
});

t.test('a long poll on a replica wakes for an append on the leader', async (t) => {
  const root = t.testdir();
  const leader = await startLeader(t, nodeDirectories(root, 'leader'));
  const replica = await startReplica(t, nodeDirectories(root, 'replica'), leader.url);
  const stream = `polled-${randomUUID()}`;
  // The replica must know the stream before it is polled past its end: its first event.
  await appendEvent(leader.url, stream, 10);
  await waitForReplicas(nodeDirectories(root, 'leader'), [{ directories: nodeDirectories(root, 'replica'), url: replica.url }]);
  const poll = fetch(`${replica.url}/streams/${stream}/1/forward/20?embed=body`, {
    headers: { authorization: ADMIN_AUTH, accept: 'application/vnd.svc.atom+json', 'svc-longpoll': '30' },
  });
  // Parked before the append: the replica's long-poll consumer exists from the first wait on
  // (/stats lists it), and the event at 1 does not exist until the leader's append reaches it.
  await pollUntilAsync('the long poll parked on the replica', async () => {
    const stats = await fetch(`${replica.url}/stats`, { headers: { authorization: ADMIN_AUTH } });
    return (await stats.text()).includes('"long-polls"');
  });
  const eventId = await appendEvent(leader.url, stream, 10);
  const response = await poll;
  t.equal(response.status, 200);
  const feed = await response.json() as { entries: Array<{ eventId: string }> };
  t.same(feed.entries.map((entry) => entry.eventId), [eventId], 'the poll answers with the event appended on the leader');
});
