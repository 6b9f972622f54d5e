/**
 * Where a replica's log and its leader's part, from their epochs (daemon/replication/handshake.ts):
 * up to the replica's end within the newest term both logs hold, never past the leader's next
 * epoch or end, and nothing in common when no epoch matches.
 */
import t from 'tap';
import { commonPosition, outsideRewrittenChunk, type EpochMark } from '../../src/daemon/replication/handshake.js';

const epoch = (epochPosition: number, epochNumber: number): EpochMark => ({ epochPosition, epochNumber, epochId: `id-${epochNumber}` });
// Newest first, as both sides list them.
const leaderEpochs = [epoch(5000, 2), epoch(2000, 1), epoch(0, 0)];

t.test('a replica within the leader\'s newest term keeps all it has', async (t) => {
  t.equal(commonPosition({ epochs: [epoch(5000, 2), epoch(2000, 1)], writerCheckpoint: 5600 }, leaderEpochs, 9000), 5600);
});

t.test('a replica in an older term keeps what that term holds on the leader', async (t) => {
  t.equal(commonPosition({ epochs: [epoch(2000, 1), epoch(0, 0)], writerCheckpoint: 4000 }, leaderEpochs, 9000), 4000, 'behind: all of it');
  t.equal(commonPosition({ epochs: [epoch(2000, 1), epoch(0, 0)], writerCheckpoint: 7000 }, leaderEpochs, 9000), 5000,
    'past where the leader\'s next term began: cut back to it');
});

t.test('a replica past the leader\'s end is cut back to it', async (t) => {
  t.equal(commonPosition({ epochs: [epoch(5000, 2)], writerCheckpoint: 9500 }, leaderEpochs, 9000), 9000);
});

t.test('an epoch at the same position with another id is another term', async (t) => {
  const theirs = [{ epochPosition: 5000, epochNumber: 2, epochId: 'elsewhere' }, epoch(2000, 1)];
  t.equal(commonPosition({ epochs: theirs, writerCheckpoint: 6000 }, leaderEpochs, 9000), 5000);
});

t.test('no epoch in common: nothing in common', async (t) => {
  t.equal(commonPosition({ epochs: [{ epochPosition: 0, epochNumber: 0, epochId: 'other' }], writerCheckpoint: 3000 }, leaderEpochs, 9000), 0);
  t.equal(commonPosition({ epochs: [], writerCheckpoint: 0 }, leaderEpochs, 9000), 0);
});

t.test('a position inside a chunk the leader rewrote moves back to the chunk\'s start', async (t) => {
  // Chunks of 100 bytes; the leader merged chunks 3 to 5 into one rewritten file.
  const chunkAt = (number: number) => (number >= 3 && number <= 5 ? { startNumber: 3, mapped: true } : { startNumber: number, mapped: false });
  t.equal(outsideRewrittenChunk(450, 100, chunkAt), 300, 'inside the merged chunk: back to its start');
  t.equal(outsideRewrittenChunk(300, 100, chunkAt), 300, 'at its start: unchanged');
  t.equal(outsideRewrittenChunk(250, 100, chunkAt), 250, 'inside a chunk as it was written: unchanged');
  t.equal(outsideRewrittenChunk(600, 100, chunkAt), 600, 'past it: unchanged');
  t.equal(outsideRewrittenChunk(900, 100, () => undefined), 900, 'past the leader\'s chunks: unchanged');
});
