/**
 * DESIGN: how a backup knows that a scavenge runs on the node (the reference's rule 2: never
 * file-copy a node while a scavenge runs), from the data directories alone, without credentials.
 *
 * Scavenge keeps its state in `<index>/scavenging/scavenging.db` (DESIGN.md §2 and §8), SQLite
 * with the reference's schema: table `Checkpoint(key INTEGER PRIMARY KEY, value TEXT)` holding one
 * row, key 0, whose value is JSON with a `checkpointStage` field. A run saves that row at every
 * stage and ends it at stage "Done". Backup checks exactly this:
 *
 *   a scavenge runs  <=>  a live process holds <db>/svcdb.lock (storage/lock.ts lockOwnerPid)
 *                         and <index>/scavenging/scavenging.db exists
 *                         and its Checkpoint row 0 is missing, unreadable, or has a
 *                             checkpointStage other than "Done".
 *
 * - Without a live lock owner nothing can scavenge (scavenge runs inside the daemon), and a run
 *   cut short by a stop or a crash left every chunk and index switch whole (switches are atomic),
 *   so the files can be copied.
 * - A database without the row, or one that cannot be read, counts as running: a scavenge that is
 *   just starting creates the file before its first checkpoint.
 * - A run stopped on request (to be resumed later) also rests at a stage other than Done, and the
 *   files cannot tell it from a running one, so it blocks a backup of the live node as well.
 * - The row is read again when the backup has copied everything; if it changed at all (a scavenge
 *   started, or even ran to the end, while files were copied), the backup fails.
 *
 * So scavenge, when it is built, must write row 0 before it touches any chunk or index file, and
 * write stage "Done" only once it touches none any more.
 */
import { join } from 'node:path';
import { Errors } from '../../common/errors.js';
import { IndexPath } from '../../storage/layout.js';
import { readStateFromOutside, type StoredState } from '../../storage/maintenance/scavenge/state-db.js';
import type { ScavengeStage } from '../../storage/maintenance/scavenge/types.js';
import { nodeIsRunning, type DataDirectories } from './source.js';

export const SCAVENGE_DONE_STAGE: ScavengeStage = 'Done';
/** How long a read waits for a scavenge's write transaction to let go of the database. */
const BUSY_TIMEOUT_MS = 5000;

export interface ScavengeState extends StoredState {
  file: string;
}

/** Reads the scavenge state file, read-only (storage's reader of the file it owns). */
export function readScavengeState(index: string): ScavengeState {
  const file = join(index, IndexPath.scavengeState);
  return { file, ...readStateFromOutside(file, BUSY_TIMEOUT_MS) };
}

export function isScavengeRunning(state: ScavengeState, nodeRunning: boolean): boolean {
  return nodeRunning && state.exists && state.stage !== SCAVENGE_DONE_STAGE;
}

/** Refuses to start a backup while a scavenge runs; returns the state to compare at the end. */
export function checkNoScavengeRunning(directories: DataDirectories): ScavengeState {
  const state = readScavengeState(directories.index);
  if (isScavengeRunning(state, nodeIsRunning(directories.db))) {
    throw Errors.backupScavengeRunning.create(state.stage ?? 'unknown', state.file);
  }
  return state;
}

/** Fails the backup if a scavenge started, or ran, while it copied files. */
export function checkScavengeUnchanged(before: ScavengeState, directories: DataDirectories): void {
  const after = readScavengeState(directories.index);
  if (after.exists !== before.exists || after.checkpoint !== before.checkpoint || after.stage !== before.stage) {
    throw Errors.backupSourceChanged.create(`a scavenge ran while files were copied (${after.file} changed: stage ${after.stage ?? 'none'})`);
  }
}
