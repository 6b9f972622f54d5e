/**
 * A replica's start: the options that make one, and the handshake before anything reads its log.
 * When its log went past the point it has in common with the leader, truncate.chk is set to
 * that point (as a restore sets it) and the engine reopened, which cuts the log back and rebuilds
 * what lies above it. A leader that cannot be reached leaves the log as it is: the replica serves
 * what it has and the follower handshakes again once the leader answers.
 */
import { existsSync } from 'node:fs';
import { Errors } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { NodeOptions } from '../../common/options/schema.js';
import { recordedChunkSize } from '../../storage/log/recovery.js';
import { requestTruncation } from '../../storage/log/truncation-request.js';
import type { LogBytes } from '../../storage/read/log-bytes.js';
import type { EpochMark } from './handshake.js';
import type { NodeClientTls } from '../tls/node-certificates.js';
import { LeaderClient } from './leader-client.js';

/** How long a start waits for the leader before it goes on with what the replica has. */
const HANDSHAKE_AT_START_TIMEOUT_MS = 10_000;

/** The leader a node follows, from --replica-of and its credentials; undefined for a node that leads. */
export function leaderClientOf(options: NodeOptions, tls?: () => NodeClientTls | undefined): LeaderClient | undefined {
  if (options.replicaOf === '') return undefined;
  let url: URL;
  try {
    url = new URL(options.replicaOf);
  } catch {
    throw Errors.optionInvalid.create('--replica-of', `${options.replicaOf} is not a URL; give the leader as http://host:port or https://host:port`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw Errors.optionInvalid.create('--replica-of', 'the leader\'s URL must be http:// or https://');
  if (url.username !== '' || url.password !== '') {
    throw Errors.optionInvalid.create('--replica-of', 'put no credentials in the URL (logs and /info/options show it); use --replica-user and --replica-password-file');
  }
  return new LeaderClient(url, { user: options.replicaUser, password: options.replicaPassword }, tls);
}

export function epochMarks(bytes: LogBytes): EpochMark[] {
  return bytes.epochs().map(({ epochPosition, epochNumber, epochId }) => ({ epochPosition, epochNumber, epochId }));
}

/**
 * The chunk size a new replica's database is made with: the leader's, asked before the database
 * exists (positions depend on it). Undefined when the database exists or the leader is silent.
 */
export async function leaderChunkSize(leader: LeaderClient, dbPath: string, logger: Logger): Promise<number | undefined> {
  if (existsSync(dbPath) && recordedChunkSize(dbPath) !== undefined) return undefined;
  try {
    return (await leader.handshake({ epochs: [], writerCheckpoint: 0 }, AbortSignal.timeout(HANDSHAKE_AT_START_TIMEOUT_MS))).chunkSizeBytes;
  } catch (error) {
    logger.warn({ leader: leader.url.origin, reason: (error as Error).message }, 'the leader did not answer; the new replica\'s database takes --chunk-size, which must be the leader\'s');
    return undefined;
  }
}

/** The newest epoch below `position`, where epoch.chk goes when the log is cut back to it. */
export function epochBefore(epochs: readonly EpochMark[], position: number): number {
  return epochs.find((epoch) => epoch.epochPosition < position)?.epochPosition ?? -1;
}

export interface ReplicaStorage {
  logBytes(): LogBytes;
  close(): Promise<void>;
}

/**
 * Handshakes once; returns the storage to run on: `storage` itself, or the engine reopened after
 * a cut back to the common position.
 */
export async function reconcileWithLeader<S extends ReplicaStorage>(
  storage: S, leader: LeaderClient, dbPath: string, reopen: () => Promise<S>, logger: Logger,
): Promise<S> {
  const bytes = storage.logBytes();
  const epochs = epochMarks(bytes);
  const writerCheckpoint = bytes.durableEnd;
  let common: number;
  try {
    common = (await leader.handshake({ epochs, writerCheckpoint }, AbortSignal.timeout(HANDSHAKE_AT_START_TIMEOUT_MS))).commonPosition;
  } catch (error) {
    logger.warn({ leader: leader.url.origin, reason: (error as Error).message }, 'the leader did not answer the handshake at start; serving what this replica has');
    return storage;
  }
  if (common >= writerCheckpoint) return storage;
  await cutBack(storage, dbPath, common, epochs, logger);
  return reopen();
}

/** Closes the storage and sets truncate.chk to `position`: the next open cuts the log back to it. */
export async function cutBack(storage: ReplicaStorage, dbPath: string, position: number, epochs: readonly EpochMark[], logger: Logger): Promise<void> {
  logger.warn({ position, writerCheckpoint: storage.logBytes().durableEnd }, 'the replica holds records the leader does not have; cutting its log back to the common position');
  await storage.close();
  await requestTruncation(dbPath, position, epochBefore(epochs, position));
}
