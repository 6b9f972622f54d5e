/**
 * Exit codes of every svcdb command, by the error that ended it. Scripts and service managers
 * branch on these, so they are stable and listed in man/errors.md; a code not listed here exits 1.
 */
import { Errors } from '../common/errors.js';

export const ExitCode = {
  success: 0,
  /** An unexpected failure, or an error without a more specific code below. */
  failure: 1,
  /** A flag, environment variable or option value is wrong (oclif uses 2 for flag parsing too). */
  usage: 2,
  /** Another process holds the database lock. */
  locked: 3,
  /** A storage file is corrupt: restore from a backup. */
  corrupt: 4,
  /** A write or fsync failed, or the log is full. */
  io: 5,
  /** The HTTP server could not bind its address. */
  listen: 6,
  /** A backup met a scavenge, or a node that changed under it: run it again later. */
  busy: 7,
  /** Backup or restore refused its source, destination or target (wrong directory, another node's backup, unfinished backup, non-empty target). */
  refused: 8,
  /** A certificate, its key or the trusted roots failed to load or validate. */
  certificate: 9,
  /** The command could not reach a running node or get an answer it understands. */
  unreachable: 10,
  /** The node refused the command's credentials. */
  unauthorized: 11,
  /** An event to redact does not exist, or is a tombstone. */
  eventNotFound: 12,
  /** An event to redact is still in the chunk the node is writing. */
  chunkNotCompleted: 13,
  /** A scavenge is already running on the node. */
  scavengeRunning: 14,
  /** The scavenge ended with result Failed. */
  scavengeFailed: 15,
  /** The scavenge was stopped before it completed, by a stop request or the node's shutdown. */
  scavengeStopped: 16,
  /** An event to redact is stream metadata (an event of a `$$` stream) or another event the node reads for rights. */
  metadataEvent: 17,
  /** The node answers but does not serve requests: it is starting or stopping (`svcdb status`). */
  notReady: 18,
  /** What the command names does not exist: a stream, event, user, projection, subscription group or running scavenge. */
  notFound: 19,
  /** The stream is not at the version given with --expected-version. */
  wrongExpectedVersion: 20,
  /** The stream was deleted permanently (hard delete). */
  streamDeleted: 21,
  /** A read-only replica answers and serves what it has, but cannot reach its leader (`svcdb status`). */
  leaderUnreachable: 22,
} as const;

const exitCodeByErrorCode: ReadonlyMap<string, number> = new Map([
  [Errors.cliUsage.code, ExitCode.usage],
  [Errors.optionInvalid.code, ExitCode.usage],
  [Errors.optionUnknown.code, ExitCode.usage],
  [Errors.optionConflict.code, ExitCode.usage],
  [Errors.optionRequires.code, ExitCode.usage],
  [Errors.optionConfigFile.code, ExitCode.usage],
  [Errors.storageLocked.code, ExitCode.locked],
  [Errors.storageChecksum.code, ExitCode.corrupt],
  [Errors.storageChunkHash.code, ExitCode.corrupt],
  [Errors.storageCorrupt.code, ExitCode.corrupt],
  [Errors.storageCheckpoint.code, ExitCode.corrupt],
  [Errors.indexCorrupt.code, ExitCode.corrupt],
  [Errors.storageIo.code, ExitCode.io],
  [Errors.storageFull.code, ExitCode.io],
  [Errors.storageDiskFull.code, ExitCode.io],
  [Errors.storageDescriptorsExhausted.code, ExitCode.io],
  [Errors.storageReplacementInvalid.code, ExitCode.refused],
  [Errors.httpListen.code, ExitCode.listen],
  [Errors.backupScavengeRunning.code, ExitCode.busy],
  [Errors.backupSourceChanged.code, ExitCode.busy],
  [Errors.backupDestinationLocked.code, ExitCode.locked],
  [Errors.backupNotDataDirectory.code, ExitCode.refused],
  [Errors.backupOtherNode.code, ExitCode.refused],
  [Errors.backupNotABackup.code, ExitCode.refused],
  [Errors.backupIncomplete.code, ExitCode.refused],
  [Errors.restoreTargetNotEmpty.code, ExitCode.refused],
  [Errors.backupCorrupt.code, ExitCode.corrupt],
  [Errors.backupIo.code, ExitCode.io],
  [Errors.backupDiskFull.code, ExitCode.io],
  [Errors.certFileUnreadable.code, ExitCode.certificate],
  [Errors.certInvalid.code, ExitCode.certificate],
  [Errors.certKeyInvalid.code, ExitCode.certificate],
  [Errors.certKeyMismatch.code, ExitCode.certificate],
  [Errors.certValidityPeriod.code, ExitCode.certificate],
  [Errors.certUntrusted.code, ExitCode.certificate],
  [Errors.certNoTrustedRoots.code, ExitCode.certificate],
  [Errors.certRefused.code, ExitCode.certificate],
  [Errors.clientUnreachable.code, ExitCode.unreachable],
  [Errors.clientNoLeader.code, ExitCode.unreachable],
  [Errors.clientTls.code, ExitCode.unreachable],
  [Errors.clientUnexpectedReply.code, ExitCode.unreachable],
  [Errors.clientTimeout.code, ExitCode.unreachable],
  [Errors.clientNodeNotRunning.code, ExitCode.unreachable],
  [Errors.clientSignalFailed.code, ExitCode.unreachable],
  [Errors.clientUnauthorized.code, ExitCode.unauthorized],
  [Errors.chunkSwitchLocked.code, ExitCode.busy],
  [Errors.redactEventsInvalid.code, ExitCode.usage],
  [Errors.redactEventNotFound.code, ExitCode.eventNotFound],
  [Errors.redactChunkNotCompleted.code, ExitCode.chunkNotCompleted],
  [Errors.redactMetadataEvent.code, ExitCode.metadataEvent],
  [Errors.redactInterpretedEvent.code, ExitCode.metadataEvent],
  [Errors.redactNoSocket.code, ExitCode.unreachable],
  [Errors.redactNotDataDirectory.code, ExitCode.refused],
  [Errors.redactDiskFull.code, ExitCode.io],
  [Errors.redactWrongUser.code, ExitCode.refused],
  [Errors.scavengeParameterInvalid.code, ExitCode.usage],
  [Errors.scavengeAlreadyRunning.code, ExitCode.scavengeRunning],
  [Errors.scavengeFailed.code, ExitCode.scavengeFailed],
  [Errors.scavengeStopped.code, ExitCode.scavengeStopped],
  [Errors.scavengeNotFound.code, ExitCode.notFound],
  [Errors.clientNodeNotReady.code, ExitCode.notReady],
  [Errors.clientLeaderUnreachable.code, ExitCode.leaderUnreachable],
  [Errors.clientEventInvalid.code, ExitCode.usage],
  [Errors.streamNotFound.code, ExitCode.notFound],
  [Errors.eventNotFound.code, ExitCode.notFound],
  [Errors.userNotFound.code, ExitCode.notFound],
  [Errors.projectionNotFound.code, ExitCode.notFound],
  [Errors.subscriptionNotFound.code, ExitCode.notFound],
  [Errors.wrongExpectedVersion.code, ExitCode.wrongExpectedVersion],
  [Errors.streamDeleted.code, ExitCode.streamDeleted],
]);

export function exitCodeFor(errorCode: string): number {
  return exitCodeByErrorCode.get(errorCode) ?? ExitCode.failure;
}
