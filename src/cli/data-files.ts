/**
 * The files of a node's data directories as the manual's FILES sections describe them. A test
 * (test/ops/man-environment-files.test.ts) runs a real node and a backup and fails when the node
 * makes a file no entry matches, or an entry that is always there is missing, so the list follows
 * the code.
 */

export interface DataFile {
  /** As written in the manual: `<db>/…` or `<index>/…`, several names separated by spaces. */
  names: string;
  /** Matches the file's path relative to the directory holding `<db>` and `<index>` (`db/…`, `index/…`). */
  pattern: RegExp;
  what: string;
  /** Made only in some cases, which `what` names. */
  optional?: boolean;
}

export const DATA_FILES: readonly DataFile[] = [
  {
    names: '<db>/chunk-NNNNNN.MMMMMM',
    pattern: /^db\/chunk-\d{6}\.\d{6}$/,
    what: 'The transaction log, in chunks: chunk-<number>.<version>. The last one is preallocated and mostly holes.',
  },
  {
    names: '<db>/writer.chk <db>/chaser.chk <db>/epoch.chk <db>/proposal.chk <db>/truncate.chk',
    pattern: /^db\/(writer|chaser|epoch|proposal|truncate)\.chk$/,
    what: 'Checkpoints: how far the log is written, flushed and indexed; truncate.chk is set by a restore.',
  },
  { names: '<db>/svcdb.lock', pattern: /^db\/svcdb\.lock$/, what: 'Held by the running node, with its pid inside; a second node or a restore is refused.' },
  { names: '<db>/svcdb.sock', pattern: /^db\/svcdb\.sock$/, what: 'The redaction socket, mode 0600, with --enable-unix-socket.', optional: true },
  { names: '<db>/svcdb-reload.json', pattern: /^db\/svcdb-reload\.json$/, what: 'The outcome of the last certificate reload (svcdb cert-reload --signal).', optional: true },
  { names: '<db>/svcdb-node.json', pattern: /^db\/svcdb-node\.json$/, what: 'The node\'s identity, written by its first backup; backups of other nodes are refused.', optional: true },
  { names: '<index>/indexmap', pattern: /^index\/indexmap$/, what: 'The list of the index files and the log position they cover.', optional: true },
  {
    names: '<index>/GUID <index>/GUID.bloomfilter',
    pattern: /^index\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\.bloomfilter)?$/,
    what: 'Index files and their bloom filters, written as the index grows and merged by the node.',
    optional: true,
  },
  {
    names: '<index>/stream-existence/streamExistenceFilter.dat <index>/stream-existence/streamExistenceFilter.chk',
    pattern: /^index\/stream-existence\/streamExistenceFilter\.(dat|chk)$/,
    what: 'The stream existence filter (--stream-existence-filter-size; none when it is 0) and how far it covers the log.',
    optional: true,
  },
  {
    names: '<index>/scavenging/scavenging.db',
    pattern: /^index\/scavenging\/scavenging\.db(-wal|-shm)?$/,
    what: 'The scavenge state (SQLite, with its -wal and -shm), from the first scavenge on.',
    optional: true,
  },
];

/** Why <db> and <index> are where they are. */
export const DATA_DIRECTORIES_TEXT = '<db> is --db (default ./data/db) and <index> is --index (default <db>/../index). '
  + 'Files are created with mode 0600 and folders 0700. A file being written carries .tmp until it is whole; '
  + 'the node deletes leftovers when it starts.';
