/**
 * A replica SIGKILLed while it follows a leader under load resumes from its own checkpoint each
 * time it restarts, and ends with the leader's bytes and every acknowledged event: nothing torn,
 * nothing lost. The moments are random (seeded): each round kills the replica once its log has
 * moved a random distance past where the round began.
 */
import t from 'tap';
import { TestRandom, testSeed } from '../helpers/random.js';
import {
  appendConcurrently, compareLogs, missingEvents, nodeDirectories, startLeader, startReplica, waitForReplicas, writerCheckpoint,
} from '../helpers/replication.js';
import { pollUntil } from '../helpers/wait.js';

const ROUNDS = 10;
const WRITERS = 16;

t.test('a replica killed at random moments resumes and ends identical', async (t) => {
  const random = new TestRandom(testSeed(t));
  const root = t.testdir();
  const leaderDirectories = nodeDirectories(root, 'leader');
  const replicaDirectories = nodeDirectories(root, 'replica');
  const leader = await startLeader(t, leaderDirectories);
  let stopWriting = false;
  const acknowledged = new Map<string, string[]>();
  // Writers go on for the whole test, in rounds of a few events each.
  const writing = (async () => {
    while (!stopWriting) {
      for (const [stream, ids] of await appendConcurrently(leader.url, WRITERS, 5, 1000)) {
        acknowledged.set(stream, [...(acknowledged.get(stream) ?? []), ...ids]);
      }
    }
  })();

  let resumedFrom = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const replica = await startReplica(t, replicaDirectories, leader.url);
    const start = writerCheckpoint(replicaDirectories.db);
    t.ok(start >= resumedFrom, `round ${round}: the replica starts from its own checkpoint (${start})`);
    const distance = random.integer(1, 256 * 1024);
    await pollUntil(`round ${round}: the replica's log ${distance} bytes past ${start}`, () => writerCheckpoint(replicaDirectories.db) >= start + distance, { intervalMs: 5 });
    await replica.process.stop('SIGKILL');
    resumedFrom = writerCheckpoint(replicaDirectories.db);
  }
  stopWriting = true;
  await writing;

  const replica = await startReplica(t, replicaDirectories, leader.url);
  const end = await waitForReplicas(leaderDirectories, [{ directories: replicaDirectories, url: replica.url }]);
  const comparison = compareLogs(leaderDirectories.db, replicaDirectories.db, end);
  t.ok(comparison.completedChunks > 10, `${comparison.completedChunks} completed chunks compared`);
  t.same(comparison.different, [], 'every completed chunk and the ongoing chunk\'s bytes are the leader\'s');
  t.same(await missingEvents(replica.url, acknowledged), [], 'the replica serves every acknowledged event');
});
