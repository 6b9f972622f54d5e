/**
 * Every file and folder name of a node's pair of data directories (DESIGN.md §2). The engine's
 * modules, the daemon and the offline procedures (backup, restore, redact, cert-reload) all take
 * the names from here, so that a name is looked up, or changed, in one place:
 *
 *   <db>/
 *     chunk-000000.000000        transaction log chunks: chunk-<number>.<version>, 6 digits each
 *     writer.chk chaser.chk epoch.chk proposal.chk truncate.chk
 *     svcdb.lock                 held by the running node (its pid inside)
 *     svcdb.sock                 the redaction socket (--enable-unix-socket)
 *     svcdb-reload.json          the outcome of the node's last certificate reload
 *     svcdb-node.json            the node's identity, written by its first backup
 *   <index>/                     (--index; where it is by default: common/options/data-directories.ts)
 *     indexmap                   the manifest of the index files
 *     <GUID>  <GUID>.bloomfilter index files and their bloom filters
 *     stream-existence/streamExistenceFilter.dat  streamExistenceFilter.chk
 *     scavenging/scavenging.db   the scavenge state (SQLite, with its -wal and -shm beside it)
 *
 * A file being written carries `.tmp` until it is whole; leftovers are deleted at the next start.
 * It imports nothing, so every room may use it.
 */
export const CheckpointName = {
  writer: 'writer.chk',
  chaser: 'chaser.chk',
  epoch: 'epoch.chk',
  proposal: 'proposal.chk',
  truncate: 'truncate.chk',
} as const;

export const LOCK_FILE_NAME = 'svcdb.lock';
/** Where a starting process moves a dead owner's lock aside. */
export const STALE_LOCK_FILE_NAME = `${LOCK_FILE_NAME}.stale`;
export const SOCKET_FILE_NAME = 'svcdb.sock';
export const RELOAD_STATUS_FILE_NAME = 'svcdb-reload.json';
export const NODE_IDENTITY_FILE_NAME = 'svcdb-node.json';

export const TEMP_SUFFIX = '.tmp';

export function isTempFile(name: string): boolean {
  return name.endsWith(TEMP_SUFFIX);
}

/**
 * A chunk file switched out (by scavenge or redaction) carries this prefix until it is deleted: the
 * name is then no chunk name (listings of chunk files do not see it) and no .tmp (which a switch
 * would take). A start deletes any left over.
 */
const REPLACED_CHUNK_PREFIX = 'replaced-';

export function replacedChunkFileName(chunkFile: string): string {
  return `${REPLACED_CHUNK_PREFIX}${chunkFile}`;
}

export function isReplacedChunkFile(name: string): boolean {
  return name.startsWith(REPLACED_CHUNK_PREFIX);
}

/** The lock file process `pid` prepares before it links it into place as the lock. */
export function preparedLockFileName(pid: number): string {
  return `${LOCK_FILE_NAME}.${pid}${TEMP_SUFFIX}`;
}

/** The process that prepared a lock file of this name; undefined for any other name. */
export function preparedLockOwner(name: string): number | undefined {
  const pid = name.startsWith(`${LOCK_FILE_NAME}.`) && isTempFile(name) ? name.slice(LOCK_FILE_NAME.length + 1, -TEMP_SUFFIX.length) : '';
  return /^\d+$/.test(pid) ? Number(pid) : undefined;
}

/**
 * A redacted copy of a chunk, written by `svcdb redact` (process `pid`) beside the chunk and
 * switched in by the node; any left over is deleted by the node and by the next redact.
 */
const REDACTED_COPY_SUFFIX = `.redact${TEMP_SUFFIX}`;

export function redactedCopyName(chunkFile: string, pid: number): string {
  return `${chunkFile}.${pid}${REDACTED_COPY_SUFFIX}`;
}

/** A redacted copy made by any redactor, or with `pid` by that process only. */
export function isRedactedCopy(name: string, pid?: number): boolean {
  return name.endsWith(pid === undefined ? REDACTED_COPY_SUFFIX : `.${pid}${REDACTED_COPY_SUFFIX}`);
}

/** A chunk file: `chunk-<number>.<version>`, six digits each (DESIGN.md §3); log/chunk-format.ts re-exports it. */
const CHUNK_NAME = /^chunk-(\d{6})\.(\d{6})$/;

export function chunkFileName(chunkNumber: number, version: number): string {
  return `chunk-${String(chunkNumber).padStart(6, '0')}.${String(version).padStart(6, '0')}`;
}

export function parseChunkFileName(name: string): { chunkNumber: number; version: number } | undefined {
  const match = CHUNK_NAME.exec(name);
  return match ? { chunkNumber: Number(match[1]), version: Number(match[2]) } : undefined;
}

export function isChunkFile(name: string): boolean {
  return parseChunkFileName(name) !== undefined;
}

/** Chunk file names in log order (by number, then version); other names are left out. */
export function sortChunkFiles(names: Iterable<string>): string[] {
  return [...names].filter(isChunkFile).sort((a, b) => {
    const left = parseChunkFileName(a)!;
    const right = parseChunkFileName(b)!;
    return left.chunkNumber - right.chunkNumber || left.version - right.version;
  });
}

export const INDEXMAP_FILE = 'indexmap';
const INDEX_FILE_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const BLOOM_FILTER_SUFFIX = '.bloomfilter';

/** An index file: its id, a GUID. */
export function isIndexFileName(name: string): boolean {
  return INDEX_FILE_NAME.test(name);
}

/** The index file a name belongs to (itself, or the file a bloom filter belongs to). */
export function indexFileIdOf(name: string): string {
  return name.endsWith(BLOOM_FILTER_SUFFIX) ? name.slice(0, -BLOOM_FILTER_SUFFIX.length) : name;
}

/** An index file or its bloom filter: `<GUID>` or `<GUID>.bloomfilter`. */
export function isIndexDataFile(name: string): boolean {
  return isIndexFileName(indexFileIdOf(name));
}

export const EXISTENCE_DIRECTORY = 'stream-existence';
export const EXISTENCE_FILTER_FILE = 'streamExistenceFilter.dat';
export const EXISTENCE_CHECKPOINT_FILE = 'streamExistenceFilter.chk';
export const SCAVENGE_DIRECTORY = 'scavenging';
export const SCAVENGE_STATE_FILE = 'scavenging.db';

/** Paths relative to the index directory, `/`-separated as in a backup. */
export const IndexPath = {
  existenceData: `${EXISTENCE_DIRECTORY}/${EXISTENCE_FILTER_FILE}`,
  existenceCheckpoint: `${EXISTENCE_DIRECTORY}/${EXISTENCE_CHECKPOINT_FILE}`,
  scavengeState: `${SCAVENGE_DIRECTORY}/${SCAVENGE_STATE_FILE}`,
} as const;
