/**
 * Asks the next start to cut the log back to a position (truncate.chk), as a restore does, for
 * a replica whose log went past the point it has in common with its leader. epoch.chk moves to
 * the newest epoch before that point at the same time, so the epochs the replica names in its
 * next handshake are still in its log after the cut.
 */
import { CheckpointName } from '../layout.js';
import { Checkpoint } from './checkpoint.js';

export async function requestTruncation(dbPath: string, position: number, epochPositionBefore: number): Promise<void> {
  const epoch = Checkpoint.open(dbPath, CheckpointName.epoch, -1, false);
  const truncate = Checkpoint.open(dbPath, CheckpointName.truncate, -1, false);
  try {
    // Lowered first: a crash between the two leaves a log whose epoch.chk is merely older.
    if (epoch.value > epochPositionBefore) epoch.write(epochPositionBefore);
    truncate.write(position);
  } finally {
    await epoch.close();
    await truncate.close();
  }
}
