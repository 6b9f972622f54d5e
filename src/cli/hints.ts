/**
 * What an operator can do next, by error code. The registry's message says what went wrong; the
 * hint names the command line to change. Codes without a hint point at the error reference.
 */
import { Errors } from '../common/errors.js';

const corruptHint = 'Stop the node and restore the database from a backup; do not edit the files by hand.';
const certificateHint = 'Fix the file the message names (--cert-file, --cert-private-key-file, --trusted-root-certificates-path), '
  + 'then start the node or run svcdb cert-reload again; a failed reload leaves the certificates in service unchanged.';

const hintByErrorCode: ReadonlyMap<string, string> = new Map([
  [Errors.storageLocked.code,
    'Another svcdb process is using this database (its pid is in svcdb.lock). Stop it first, or start this one with --db pointing at another directory.'],
  [Errors.cliUsage.code, 'Run the command with --help for its flags, arguments and allowed values; svcdb --help lists the commands.'],
  [Errors.optionInvalid.code, 'Run the command with --help for its options and their allowed values.'],
  [Errors.optionUnknown.code, 'Config file keys are the PascalCase option names (HttpPort); svcdb serve --help lists the options.'],
  [Errors.optionConflict.code, 'Change one of the two options the message names.'],
  [Errors.optionRequires.code, 'Add the options the message says are required, or leave out the option that requires them.'],
  [Errors.optionConfigFile.code, 'Check the path given with --config (or SVC_CONFIG) and that the file is a YAML mapping such as "HttpPort: 2113".'],
  [Errors.httpListen.code, 'Choose a free port with --http-port (0 picks any free port), or stop the process that uses it.'],
  [Errors.storageChecksum.code, corruptHint],
  [Errors.storageChunkHash.code, corruptHint],
  [Errors.storageCorrupt.code, corruptHint],
  [Errors.storageCheckpoint.code, corruptHint],
  [Errors.indexCorrupt.code, 'Stop the node and delete the index directory (--index); it is rebuilt from the log at the next start.'],
  [Errors.storageIo.code, 'Check the disk: free space, permissions, and the kernel log (dmesg). Then start the node again; it recovers from the log.'],
  [Errors.backupScavengeRunning.code, 'Wait for the scavenge to finish; a stopped scavenge blocks backups until it is finished: run `svcdb scavenge start --wait` to resume it to its end, then run the backup again. File-copy backups never overlap a scavenge.'],
  [Errors.backupSourceChanged.code, 'Run the backup again; if it keeps failing, run it when the node is less busy.'],
  [Errors.backupOtherNode.code, 'Back up each node into its own destination. After a node was restored from a backup, take a full backup into an empty destination.'],
  [Errors.backupNotDataDirectory.code, 'Give the node\'s --db directory (and --index if it is not <db>/../index), as svcdb serve uses them.'],
  [Errors.backupNotABackup.code, 'Give a folder or .tar.gz file written by svcdb backup; a backup destination must be empty or hold a backup of the same node.'],
  [Errors.backupIncomplete.code, 'Run svcdb backup into the same destination again to finish it, or restore from another backup.'],
  [Errors.backupDestinationLocked.code, 'Another svcdb backup is writing there (its pid is in svcdb.lock in the destination); wait for it, or choose another destination.'],
  [Errors.backupCorrupt.code, 'Do not restore from this backup; take a new backup of the node (a full one if the damage is in older chunks).'],
  [Errors.backupIo.code, 'Check free space and permissions of the backup destination or the restore target, then run the command again.'],
  [Errors.backupDiskFull.code, 'Free space (or raise the quota) where the backup or restore writes, then run it again; a backup folder or archive keeps the backup it held before.'],
  [Errors.restoreTargetNotEmpty.code, 'Restore into empty --db and --index directories, or add --force to replace the database files there (its data is lost).'],
  [Errors.certFileUnreadable.code, certificateHint],
  [Errors.certInvalid.code, certificateHint],
  [Errors.certKeyInvalid.code, certificateHint],
  [Errors.certKeyMismatch.code, certificateHint],
  [Errors.certValidityPeriod.code, certificateHint],
  [Errors.certUntrusted.code, certificateHint],
  [Errors.certNoTrustedRoots.code, certificateHint],
  [Errors.certRefused.code, certificateHint],
  [Errors.clientUnreachable.code, 'Check that the node is running (its log has a "listening" line with address, port and protocol) and pass that as --url, e.g. https://127.0.0.1:2113.'],
  [Errors.clientNoLeader.code, 'Check each node with svcdb status --url <one URL>; a cluster elects a leader once a majority of its nodes and etcd run.'],
  [Errors.clientTls.code, 'Pass the CA certificate that issued the node\'s certificate with --ca-file, and connect by a name or address the certificate lists (subjectAltName).'],
  // Named flags are the ones every command that talks to a node has (node-flags.ts).
  [Errors.clientUnauthorized.code, 'Check --username and --password or --password-file (or SVC_USERNAME and SVC_PASSWORD or SVC_PASSWORD_FILE); '
    + 'admin commands need a user in $admins or $ops, stream commands one that the stream\'s ACL allows.'],
  [Errors.clientProjectionsOff.code, 'Restart the node with --run-projections All (SVC_RUN_PROJECTIONS=All, or RunProjections: All in its config file).'],
  [Errors.streamNotFound.code, 'Check the stream name (svcdb stream read \'$all\' shows what was written, as an admin); an append creates a stream, and a soft-deleted one reads as missing until the next append.'],
  [Errors.eventNotFound.code, 'Read the stream (svcdb stream read STREAM) for the event numbers it has.'],
  [Errors.wrongExpectedVersion.code, 'Another writer got there first: read the stream (svcdb stream read STREAM --backwards --count 1), decide again, and retry with its last event number as the expected version.'],
  [Errors.streamDeleted.code, 'A stream deleted for good (hard delete) never comes back: write to another stream name.'],
  [Errors.userNotFound.code, 'Check the login name; svcdb user list lists the users.'],
  [Errors.projectionNotFound.code, 'Check the name; svcdb projection list lists the projections.'],
  [Errors.subscriptionNotFound.code, 'Check the stream and group names; svcdb subscription list lists the groups, svcdb subscription create makes one.'],
  [Errors.clientNodeNotReady.code, 'Wait for the node to finish starting (its log says "listening"), then run the command again.'],
  [Errors.clientEventInvalid.code, 'Give the data as JSON (--data \'{"a":1}\'), and on standard input one JSON object per line: '
    + '{"eventType":"T","data":{...}}, or the data alone with --type.'],
  [Errors.clientUnexpectedReply.code, 'Check that --url points at a svcdb node (not a proxy or another service) and that the node is of this version.'],
  [Errors.clientTimeout.code, 'The node took the connection but did not answer in time: check its log for what it was doing, then run the command again; '
    + 'raise --timeout-seconds if the node is very busy.'],
  [Errors.clientNodeNotRunning.code, 'Start the node, or pass the --db of the running node (the directory whose svcdb.lock holds its pid).'],
  [Errors.clientSignalFailed.code, 'Run svcdb cert-reload as the user that runs the node (or root), or reload over HTTP without --signal.'],
  [Errors.chunkSwitchLocked.code, 'A scavenge (or another redaction) holds the chunk-switch lock; wait for it to finish or stop it, then run the command again.'],
  [Errors.redactEventsInvalid.code, 'List events as eventNumber@stream separated by commas (--events 5@orders-1,7@orders-1), or one per line in --events-file.'],
  [Errors.redactEventNotFound.code, 'Remove the event from the list (read it with GET /streams/{stream}/{number} to check), then run again; nothing was changed.'],
  [Errors.redactChunkNotCompleted.code, 'Wait until the node has written enough events after it to complete its chunk (--chunk-size bytes per chunk), then run again; nothing was changed.'],
  [Errors.redactNoSocket.code, 'Start the node on this --db with --enable-unix-socket (EnableUnixSocket: true, SVC_ENABLE_UNIX_SOCKET=true) and run svcdb redact as the node\'s user.'],
  [Errors.redactNotDataDirectory.code, 'Point --db at the database directory the running node serves (the --db of svcdb serve).'],
  [Errors.redactWrongUser.code, 'Run svcdb redact as the user the node runs as (sudo -u <that user> svcdb redact …); its copies of the chunks must belong to that user.'],
  [Errors.redactDiskFull.code, 'A redaction needs room on the disk holding --db for a copy of each chunk it changes, up to four at once '
    + '(four times --chunk-size). Run it again once there is: events already redacted are skipped.'],
]);

export function hintFor(errorCode: string): string {
  return hintByErrorCode.get(errorCode) ?? `See ${errorCode} in the error reference (man svcdb-errors).`;
}

// Their fix is on the command line itself, so the hint names the help of the command that was run.
const fixedByHelp = new Set([Errors.cliUsage.code, Errors.optionInvalid.code]);

/** The hint for an error that exits with the usage code: always the help of `commandLine`. */
export function usageHintFor(errorCode: string, commandLine: string): string {
  const help = `See ${commandLine} --help.`;
  return fixedByHelp.has(errorCode) ? help : `${hintFor(errorCode)} ${help}`;
}
