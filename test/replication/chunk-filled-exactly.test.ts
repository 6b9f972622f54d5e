/**
 * A leader and a replica as real processes, and an event whose record is exactly as long as the
 * room left in the leader's ongoing chunk. Had it filled the chunk to its last byte, the
 * leader's stream would have gone on with the next chunk's header without the completion of
 * this one, and the replica, still in it, would have refused every connection from then on.
 * It goes to the next chunk: the replica follows with no reconnect and ends byte for byte as
 * the leader.
 */
import t from 'tap';
import {
  TEST_CHUNK_BYTES, appendEvent, compareLogs, nodeDirectories, nodeInfo, startLeader, startReplica, waitForReplicas, writerCheckpoint,
} from '../helpers/replication.js';

const STREAM = 'filled';
const PROBE_PAD = 100;

t.test('a replica follows past an event whose record would fill the chunk to its last byte', async (t) => {
  const root = t.testdir();
  const leaderDirectories = nodeDirectories(root, 'leader');
  const replicaDirectories = nodeDirectories(root, 'replica');
  const leader = await startLeader(t, leaderDirectories);
  const replica = await startReplica(t, replicaDirectories, leader.url);
  /** Appends one event with `pad` bytes of padding; returns how many log bytes it took. */
  const append = async (pad: number): Promise<number> => {
    const before = writerCheckpoint(leaderDirectories.db);
    await appendEvent(leader.url, STREAM, pad);
    return writerCheckpoint(leaderDirectories.db) - before;
  };

  // The record's bytes beyond its padding: every padding byte is one more byte of record.
  const fixed = (await append(PROBE_PAD)) - PROBE_PAD;
  t.equal(await append(PROBE_PAD + 1), fixed + PROBE_PAD + 1, 'a padding byte more makes the record a byte longer');
  while (TEST_CHUNK_BYTES - writerCheckpoint(leaderDirectories.db) > fixed + 2000) await append(1000);
  const room = TEST_CHUNK_BYTES - writerCheckpoint(leaderDirectories.db);
  // A record of `room` bytes, then one more event, which the leader writes in the next chunk in any case.
  await append(room - fixed);
  await append(PROBE_PAD);

  const end = await waitForReplicas(leaderDirectories, [{ directories: replicaDirectories, url: replica.url }]);
  t.ok(end > TEST_CHUNK_BYTES, `the log went on in a second chunk (${end})`);
  const comparison = compareLogs(leaderDirectories.db, replicaDirectories.db, end);
  t.equal(comparison.completedChunks, 1, 'the replica completed the first chunk');
  t.same(comparison.different, [], 'its chunks are the leader\'s bytes');
  t.equal((await nodeInfo(replica.url)).replication?.reconnects, 0, 'it never had to reconnect');
});
