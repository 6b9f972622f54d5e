/**
 * The files of a node's data directories as the manual's FILES sections describe them, with the
 * names taken from storage/layout.ts, which owns them. A test
 * (test/ops/man-environment-files.test.ts) runs a real node and a backup and fails when the node
 * makes a file no entry matches, or an entry that is always there is missing.
 */
import {
  BLOOM_FILTER_SUFFIX, CheckpointName, EXISTENCE_CHECKPOINT_FILE, EXISTENCE_DIRECTORY, EXISTENCE_FILTER_FILE, INDEXMAP_FILE,
  LOCK_FILE_NAME, NODE_IDENTITY_FILE_NAME, RELOAD_STATUS_FILE_NAME, SCAVENGE_DIRECTORY, SCAVENGE_STATE_FILE, SOCKET_FILE_NAME,
  TEMP_SUFFIX, chunkFileName, isChunkFile, isIndexDataFile,
} from '../storage/layout.js';

export interface DataFile {
  /** As written in the manual: `<db>/…` or `<index>/…`, several names separated by spaces. */
  names: string;
  /** Whether a path relative to the directory holding `<db>` and `<index>` (`db/…`, `index/…`) is one of these. */
  matches(path: string): boolean;
  what: string;
  /** Made only in some cases, which `what` names. */
  optional?: boolean;
}

/** A matcher for files directly in `directory` (`db` or `index`) whose name passes `test`. */
function inDirectory(directory: string, test: (name: string) => boolean): (path: string) => boolean {
  return (path) => path.startsWith(`${directory}/`) && !path.slice(directory.length + 1).includes('/') && test(path.slice(directory.length + 1));
}

const oneOf = (names: readonly string[]) => (name: string) => names.includes(name);
const checkpoints = Object.values(CheckpointName);
const existence = [EXISTENCE_FILTER_FILE, EXISTENCE_CHECKPOINT_FILE].map((name) => `${EXISTENCE_DIRECTORY}/${name}`);
const scavengeState = `${SCAVENGE_DIRECTORY}/${SCAVENGE_STATE_FILE}`;

export const DATA_FILES: readonly DataFile[] = [
  {
    names: `<db>/${chunkFileName(0, 0)} <db>/${chunkFileName(1, 0)} …`,
    matches: inDirectory('db', isChunkFile),
    what: 'The transaction log, in chunks: chunk-<number>.<version>. The last one is preallocated and mostly holes.',
  },
  {
    names: checkpoints.map((name) => `<db>/${name}`).join(' '),
    matches: inDirectory('db', oneOf(checkpoints)),
    what: 'Checkpoints: how far the log is written, flushed and indexed; truncate.chk is set by a restore.',
  },
  {
    names: `<db>/${LOCK_FILE_NAME}`, matches: inDirectory('db', oneOf([LOCK_FILE_NAME])),
    what: 'Held by the running node, with its pid inside; a second node or a restore is refused.',
  },
  {
    names: `<db>/${SOCKET_FILE_NAME}`, matches: inDirectory('db', oneOf([SOCKET_FILE_NAME])),
    what: 'The redaction socket, mode 0600, with --enable-unix-socket.', optional: true,
  },
  {
    names: `<db>/${RELOAD_STATUS_FILE_NAME}`, matches: inDirectory('db', oneOf([RELOAD_STATUS_FILE_NAME])),
    what: 'The outcome of the last certificate reload (svcdb cert-reload --signal).', optional: true,
  },
  {
    names: `<db>/${NODE_IDENTITY_FILE_NAME}`, matches: inDirectory('db', oneOf([NODE_IDENTITY_FILE_NAME])),
    what: 'The node\'s identity, written by its first backup; backups of other nodes are refused.', optional: true,
  },
  {
    names: `<index>/${INDEXMAP_FILE}`, matches: inDirectory('index', oneOf([INDEXMAP_FILE])),
    what: 'The list of the index files and the log position they cover.', optional: true,
  },
  {
    names: `<index>/GUID <index>/GUID${BLOOM_FILTER_SUFFIX}`, matches: inDirectory('index', isIndexDataFile),
    what: 'Index files and their bloom filters, written as the index grows and merged by the node.', optional: true,
  },
  {
    names: existence.map((path) => `<index>/${path}`).join(' '),
    matches: (path) => existence.some((name) => path === `index/${name}`),
    what: 'The stream existence filter (--stream-existence-filter-size; none when it is 0) and how far it covers the log.',
    optional: true,
  },
  {
    names: `<index>/${scavengeState}`,
    matches: (path) => ['', '-wal', '-shm'].some((suffix) => path === `index/${scavengeState}${suffix}`),
    what: 'The scavenge state (SQLite, with its -wal and -shm), from the first scavenge on.',
    optional: true,
  },
];

/** Why <db> and <index> are where they are. */
export const DATA_DIRECTORIES_TEXT = '<db> is --db (default ./data/db) and <index> is --index (default <db>/../index). '
  + `Files are created with mode 0600 and folders 0700. A file being written carries ${TEMP_SUFFIX} until it is whole; `
  + 'the node deletes leftovers when it starts.';
