/**
 * The layout of a backup. A backup folder (or archive) holds
 *
 *   svcdb-backup.json   the manifest: which node the files came from, and whether the backup finished
 *   db/                 the database directory's checkpoints and chunk files
 *   index/              the index directory's files, in the same relative places
 *
 * The names inside db/ and index/ are the data directories' own (storage/layout.ts); nothing else
 * in the data directories is copied (not the lock, not the node identity, not temp files).
 */
import { CheckpointName, IndexPath, isChunkFile } from '../../storage/layout.js';

export const MANIFEST_FILE = 'svcdb-backup.json';
export const BACKUP_DB_DIRECTORY = 'db';
export const BACKUP_INDEX_DIRECTORY = 'index';

/**
 * The database checkpoints a full backup copies, chaser first: every value is read after the one
 * before it, so the copy keeps chaser <= writer (both only grow).
 */
export const FULL_DB_CHECKPOINTS = [
  CheckpointName.chaser, CheckpointName.epoch, CheckpointName.writer, CheckpointName.proposal, CheckpointName.truncate,
] as const;

/** The reference's differential log part, step 2: these four, in this order (not truncate.chk). */
export const DIFFERENTIAL_DB_CHECKPOINTS = [
  CheckpointName.chaser, CheckpointName.epoch, CheckpointName.writer, CheckpointName.proposal,
] as const;

/** Index checkpoint files, the reference's "*.chk under the index directory". */
export const INDEX_CHECKPOINTS = [IndexPath.existenceCheckpoint] as const;

/**
 * The suffix the reference's differential log part gives the backup's last chunk before copying it
 * again. svcdb copies it again in place instead (differential-log.ts); a `.old` file in a backup
 * is deleted by the next backup into it.
 */
export const OLD_SUFFIX = '.old';

/** `chunk-X.Y.old`, as step 1 of the reference's differential log part names a chunk set aside. */
export function isOldChunkFile(name: string): boolean {
  return name.endsWith(OLD_SUFFIX) && isChunkFile(name.slice(0, -OLD_SUFFIX.length));
}
