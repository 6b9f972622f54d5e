/**
 * The start-up check of the log's completed chunks (`--verify-chunks`): each file's hash is
 * recomputed and compared with its footer's, newest chunk first, since recent chunks are the
 * likeliest to have been damaged by a crash and the likeliest to be read.
 */
import type { Chunk } from './chunk.js';
import type { TransactionLog } from './transaction-log.js';

/**
 * Checks the hash of every completed chunk; returns the first whose hash does not hold,
 * 'verified' when every one holds, or 'stopped' once `stopped()` says so (the engine was closed
 * or failed meanwhile: a read that fails then is not damage).
 */
export async function verifyCompletedChunks(log: TransactionLog, stopped: () => boolean): Promise<Chunk | 'verified' | 'stopped'> {
  for (const chunk of log.completedChunks()) {
    if (stopped()) return 'stopped';
    let intact: boolean;
    try {
      intact = await chunk.verifyHash();
    } catch (error) {
      if (stopped()) return 'stopped';
      throw error;
    }
    if (!intact) return chunk;
  }
  return 'verified';
}
