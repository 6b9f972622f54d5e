/**
 * DESIGN: which writes a backup keeps.
 *
 * A restore cuts the log back to the backup's chaser.chk (the reference's restore step 3). The
 * node writes chaser.chk about once a second (storage/engine.ts), so the file can lag the writes
 * the node has acknowledged by up to that long. Copied as it is, a backup would drop the writes
 * of the last second before it started, although they were acknowledged.
 *
 * So before it reads the database checkpoints, a backup of a running node waits until chaser.chk
 * reaches both
 * - writer.chk as it was when the backup started: every write acknowledged before the backup
 *   began survives a restore;
 * - the commit position of the index the backup copied: the restored index is not ahead of the
 *   log, so the node does not have to rebuild the index from scratch.
 * That takes at most one chaser interval on a healthy node. A node that is not running moves
 * nothing; its checkpoints are copied as they are and the result says how far a restore reaches.
 */
import { CheckpointName } from '../../storage/layout.js';
import { nodeIsRunning, readCheckpoint } from './source.js';

/** Ten chaser intervals: a node that does not catch up by then is in trouble, and the backup says so. */
export const CHASER_WAIT_MS_DEFAULT = 10_000;
const CHASER_POLL_MS = 20;

export interface ChaserWait {
  chaser: number;
  target: number;
  waitedMs: number;
  /** Why chaser.chk stayed below the target, when it did. */
  shortfall?: string;
}

export async function waitForChaser(db: string, target: number, waitMs: number): Promise<ChaserWait> {
  const started = Date.now();
  for (;;) {
    const chaser = (await readCheckpoint(db, CheckpointName.chaser)) ?? 0;
    const waitedMs = Date.now() - started;
    if (chaser >= target) return { chaser, target, waitedMs };
    const shortfall = (why: string) => ({
      chaser, target, waitedMs,
      shortfall: `chaser.chk (${chaser}) stayed below ${target} (${why}); a restore of this backup keeps the log up to ${chaser} only`,
    });
    if (!nodeIsRunning(db)) return shortfall('the node is not running');
    if (waitedMs >= waitMs) return shortfall(`the node did not advance it within ${waitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, CHASER_POLL_MS));
  }
}
