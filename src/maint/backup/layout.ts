/**
 * The names backup and restore work on: the data directories of DESIGN.md §2 and the layout of a
 * backup. A backup folder (or archive) holds
 *
 *   svcdb-backup.json   the manifest: which node the files came from, and whether the backup finished
 *   db/                 the database directory's checkpoints and chunk files
 *   index/              the index directory's files, in the same relative places
 *
 * Every name comes from the storage modules that own the format; nothing else in the data
 * directories is copied (not the lock, not the node identity, not temp files).
 */
import { CheckpointName } from '../../storage/log/checkpoint.js';
import { parseChunkFileName } from '../../storage/log/chunk-format.js';
import { EXISTENCE_CHECKPOINT_FILE, EXISTENCE_FILTER_FILE } from '../../storage/index/existence-filter.js';
import { INDEXMAP_FILE, isIndexFileName } from '../../storage/index/indexmap.js';

export const MANIFEST_FILE = 'svcdb-backup.json';
export const BACKUP_DB_DIRECTORY = 'db';
export const BACKUP_INDEX_DIRECTORY = 'index';

export { INDEXMAP_FILE };

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

/** Paths relative to the index directory. */
export const EXISTENCE_DIRECTORY = 'stream-existence';
export const EXISTENCE_CHECKPOINT = `${EXISTENCE_DIRECTORY}/${EXISTENCE_CHECKPOINT_FILE}`;
export const EXISTENCE_DATA = `${EXISTENCE_DIRECTORY}/${EXISTENCE_FILTER_FILE}`;
export const SCAVENGE_DIRECTORY = 'scavenging';
export const SCAVENGE_STATE = `${SCAVENGE_DIRECTORY}/scavenging.db`;

/** Index checkpoint files, the reference's "*.chk under the index directory". */
export const INDEX_CHECKPOINTS = [EXISTENCE_CHECKPOINT] as const;

const BLOOM_SUFFIX = '.bloomfilter';
/**
 * The suffix the reference's differential log part gives the backup's last chunk before copying it
 * again. svcdb copies it again in place instead (differential-log.ts); a `.old` file in a backup
 * is deleted by the next backup into it.
 */
export const OLD_SUFFIX = '.old';
/** Files being copied carry this suffix until they are whole; the engine deletes such leftovers too. */
export const TEMP_SUFFIX = '.tmp';

export function isChunkFile(name: string): boolean {
  return parseChunkFileName(name) !== undefined;
}

/** Chunk file names in log order (by number, then version). */
export function sortChunkFiles(names: Iterable<string>): string[] {
  return [...names].filter(isChunkFile).sort((a, b) => {
    const left = parseChunkFileName(a)!;
    const right = parseChunkFileName(b)!;
    return left.chunkNumber - right.chunkNumber || left.version - right.version;
  });
}

/** `chunk-X.Y.old`, as step 1 of the reference's differential log part names a chunk set aside. */
export function isOldChunkFile(name: string): boolean {
  return name.endsWith(OLD_SUFFIX) && isChunkFile(name.slice(0, -OLD_SUFFIX.length));
}

/** An index file or its bloom filter: `<GUID>` or `<GUID>.bloomfilter`. */
export function isIndexDataFile(name: string): boolean {
  return isIndexFileName(name.endsWith(BLOOM_SUFFIX) ? name.slice(0, -BLOOM_SUFFIX.length) : name);
}

/** The index file a name belongs to (itself, or the file a bloom filter belongs to). */
export function indexFileIdOf(name: string): string {
  return name.endsWith(BLOOM_SUFFIX) ? name.slice(0, -BLOOM_SUFFIX.length) : name;
}

export function isTempFile(name: string): boolean {
  return name.endsWith(TEMP_SUFFIX);
}
