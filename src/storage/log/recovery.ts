/**
 * The log's recovery at start: the checkpoints, the log cut back to truncate.chk, its end found
 * from writer.chk on (and writer.chk moved there). What it returns is consistent; anything
 * opened is closed again if a step fails. The index catches up afterwards (engine-recovery.ts),
 * so a log opens without one.
 */
import { closeSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Errors } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { CHUNK_HEADER_BYTES, decodeChunkHeader, parseChunkFileName } from './chunk-format.js';
import { Checkpoint } from './checkpoint.js';
import { CheckpointName } from '../layout.js';
import { TransactionLog, type LogOpenOptions } from './transaction-log.js';
import { fileSystem } from '../disk/file-system.js';

export interface Checkpoints {
  writer: Checkpoint;
  chaser: Checkpoint;
  epoch: Checkpoint;
  proposal: Checkpoint;
  truncate: Checkpoint;
}

export interface RecoveredLog {
  checkpoints: Checkpoints;
  log: TransactionLog;
  /** Closes everything above, newest first. */
  close(): Promise<void>;
}

/** Where the log lives and how it opens; the chunk size is the configured one. */
export type LogRecoveryOptions = Omit<LogOpenOptions, 'logger'>;

/** Every checkpoint, to close them all. */
export function checkpointList({ writer, chaser, epoch, proposal, truncate }: Checkpoints): Checkpoint[] {
  return [writer, chaser, epoch, proposal, truncate];
}

function openCheckpoints(dbPath: string): Checkpoints {
  return {
    writer: Checkpoint.open(dbPath, CheckpointName.writer, 0, true),
    chaser: Checkpoint.open(dbPath, CheckpointName.chaser, 0, true),
    epoch: Checkpoint.open(dbPath, CheckpointName.epoch, -1, false),
    proposal: Checkpoint.open(dbPath, CheckpointName.proposal, -1, false),
    truncate: Checkpoint.open(dbPath, CheckpointName.truncate, -1, false),
  };
}

/**
 * The chunk size the database was made with: the one in the header of its first chunk, or
 * undefined for a database without chunks. Positions are chunk number × chunk size, so the size
 * belongs to the database, not to the configuration.
 */
export function recordedChunkSize(dbPath: string): number | undefined {
  let first: { name: string; chunkNumber: number; version: number } | undefined;
  for (const name of readdirSync(dbPath)) {
    const parsed = parseChunkFileName(name);
    if (!parsed) continue;
    if (!first || parsed.chunkNumber < first.chunkNumber || (parsed.chunkNumber === first.chunkNumber && parsed.version > first.version)) {
      first = { name, ...parsed };
    }
  }
  if (!first) return undefined;
  const path = join(dbPath, first.name);
  const bytes = Buffer.alloc(CHUNK_HEADER_BYTES);
  const fd = fileSystem.openSync(path, 'r');
  try {
    fileSystem.readSync(fd, bytes, 0, CHUNK_HEADER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
  const header = decodeChunkHeader(bytes);
  if (typeof header === 'string') throw Errors.storageCorrupt.create(path, 0, header);
  return header.chunkSize;
}

/** The chunk size to open the log with; a configured size that differs is reported, not used. */
function databaseChunkSize(options: LogRecoveryOptions, logger: Logger): number {
  const recorded = recordedChunkSize(options.dbPath);
  if (recorded !== undefined && recorded !== options.chunkSizeBytes) {
    logger.warn(
      { configuredChunkSize: options.chunkSizeBytes, databaseChunkSize: recorded },
      'the configured chunk size differs from the one the database was made with; the database keeps its own',
    );
  }
  return recorded ?? options.chunkSizeBytes;
}

export async function recoverLog(options: LogRecoveryOptions, logger: Logger): Promise<RecoveredLog> {
  // What is open so far, closed again (newest first) if the start fails half way.
  const opened: Array<{ close(): unknown }> = [];
  const close = async () => {
    for (const resource of opened.reverse()) await Promise.resolve(resource.close()).catch(() => undefined);
  };
  try {
    const checkpoints = openCheckpoints(options.dbPath);
    opened.push(...checkpointList(checkpoints));
    const logOptions: LogOpenOptions = {
      dbPath: options.dbPath, chunkSizeBytes: databaseChunkSize(options, logger), cachedChunksMax: options.cachedChunksMax, logger,
    };
    await applyTruncation(checkpoints, logOptions, logger);
    const log = await TransactionLog.open(logOptions, checkpoints.writer.value);
    opened.push(log);
    // The end found past writer.chk is made durable before anything reads the checkpoints.
    if (log.writerPosition !== checkpoints.writer.value) checkpoints.writer.write(log.writerPosition);
    checkCheckpoints(checkpoints, logger);
    return { checkpoints, log, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * epoch.chk past writer.chk contradicts the log. chaser.chk only says how far the log was
 * processed: past the writer it is simply wrong, and the log below writer.chk is processed again.
 */
function checkCheckpoints({ writer, chaser, epoch }: Checkpoints, logger: Logger): void {
  if (epoch.value >= writer.value) {
    throw Errors.storageCheckpoint.create(`epoch.chk ${epoch.value} is past writer.chk ${writer.value}`);
  }
  if (chaser.value > writer.value) {
    logger.warn({ chaser: chaser.value, writer: writer.value }, 'chaser.chk is past writer.chk; moving it back');
    chaser.write(writer.value);
  }
}

/**
 * Cuts the log back to truncate.chk (set by a restore or a replica that left its leader's log)
 * and lowers the other checkpoints. writer.chk may lag the log's end (log-end.ts), so the log is
 * cut at truncate.chk even past writer.chk: nothing past truncate.chk may be found by the walk
 * that follows.
 */
async function applyTruncation(checkpoints: Checkpoints, logOptions: LogOpenOptions, logger: Logger): Promise<void> {
  const { truncate, writer, chaser, epoch } = checkpoints;
  if (truncate.value < 0) return;
  const end = await TransactionLog.truncate(logOptions, truncate.value);
  if (writer.value > end) writer.write(end);
  if (chaser.value > end) chaser.write(end);
  if (epoch.value >= end) epoch.write(-1);
  logger.warn({ position: end, writer: writer.value }, 'truncated the log to truncate.chk');
  truncate.write(-1);
}
