/**
 * Where a replica's log and its leader's part, from their epochs (daemon/replication/handshake.ts):
 * up to the replica's end within the newest term both logs hold, never past the leader's next
 * epoch or end, and nothing in common when no epoch matches.
 */
import t from 'tap';
import { commonPosition, type EpochMark } from '../../src/daemon/replication/handshake.js';

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
