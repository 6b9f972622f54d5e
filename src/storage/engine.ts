import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Errors } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import { CheckpointName, Checkpoint } from './checkpoint.js';
import { resolveEngineOptions, type EngineOptions, type ResolvedEngineOptions } from './engine-options.js';
import { writeEpoch } from './epoch.js';
import { StreamExistenceFilter, disabledExistenceFilter, type ExistenceFilter } from './existence-filter.js';
import { TableIndex } from './index/table-index.js';
import { DatabaseLock } from './lock.js';
import { Reader, type AllFilter, type AllPage, type EventRead, type StreamPage } from './reader.js';
import { checkEvents, checkExpectedVersion, checkStreamName, checkCount, checkPosition } from './request-checks.js';
import { StreamLookup } from './stream-info.js';
import {
  DELETED_EVENT_NUMBER, METADATA_EVENT_TYPE, TOMBSTONE_EVENT_TYPE, isMetadataStream, metadataStreamOf,
  originalStreamOf, validateMetadata, type StreamMetadata,
} from './stream-metadata.js';
import { TransactionLog } from './transaction-log.js';
import { Writer, type CommittedWrite, type NewEvent, type WriteResult } from './writer.js';
import type { EngineStatistics } from './engine-stats.js';
import { peekEventKey } from './record.js';
import { randomUUID } from 'node:crypto';
import { isTransientStorageError } from './file-write.js';
import { LogConsumers, type ConsumerOptions, type LogConsumer } from './log-consumers.js';

export type EngineState = 'open' | 'closing' | 'closed' | 'failed';

export interface EngineStatus {
  state: EngineState;
  writerPosition: number;
  chaserPosition: number;
  epochNumber: number;
  /** Log position and id of this start's epoch record (-1 and '' before it is written). */
  epochPosition: number;
  epochId: string;
  chunkCount: number;
}

const CHASER_FLUSH_INTERVAL_MS = 1000;

interface Checkpoints {
  writer: Checkpoint;
  chaser: Checkpoint;
  epoch: Checkpoint;
  proposal: Checkpoint;
  truncate: Checkpoint;
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
 * The database engine: one transaction log, its index, the existence filter and the single
 * writer, opened with recovery and closed cleanly. A fatal error (failed fsync, corruption)
 * stops it: every later call fails with SVCDB_ERR_STORAGE_CLOSED and `onFatal` listeners hear it.
 */
export class Engine {
  private state: EngineState = 'open';
  private failure: Error | undefined;
  private readonly events = new EventEmitter();
  private chaserPosition: number;
  private chaserTimer: NodeJS.Timeout | undefined;
  private epochNumber = -1;
  private epochPosition = -1;
  private epochId = '';
  private readonly writer: Writer;
  private readonly reader: Reader;
  private readonly streams: StreamLookup;
  private readonly commitHooks = new Set<(writes: CommittedWrite[]) => void>();
  private readonly consumers: LogConsumers;

  private constructor(
    private readonly options: ResolvedEngineOptions,
    private readonly lock: DatabaseLock,
    private readonly checkpoints: Checkpoints,
    private readonly log: TransactionLog,
    private readonly index: TableIndex,
    private readonly existence: ExistenceFilter,
    private readonly logger: Logger,
  ) {
    this.streams = new StreamLookup(log, index, existence, options.streamInfoCacheCapacity, log.reads);
    this.reader = new Reader(log, this.streams, options.clock);
    this.writer = new Writer(
      log, checkpoints.writer, this.streams,
      (writes, end) => this.publish(writes, end),
      (error) => this.fail(error),
      options.recentEventIdsMax,
      options.clock,
    );
    this.chaserPosition = log.readableEnd;
    this.events.setMaxListeners(0);
    this.consumers = new LogConsumers({
      readAllForward: (position, maxCount) => this.guardRead(() => this.reader.readAllForward(position, maxCount)),
      readableEnd: () => this.log.readableEnd,
    }, logger);
  }

  static async open(engineOptions: EngineOptions): Promise<Engine> {
    const options = resolveEngineOptions(engineOptions);
    const logger = options.logger.child({ component: 'storage' });
    mkdirSync(options.dbPath, { recursive: true });
    mkdirSync(options.indexPath, { recursive: true });
    const lock = DatabaseLock.acquire(options.dbPath);
    try {
      return await Engine.recover(options, lock, logger);
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  private static async recover(options: ResolvedEngineOptions, lock: DatabaseLock, logger: Logger): Promise<Engine> {
    // What is open so far, closed again (newest first) if the start fails half way.
    const opened: Array<{ close(): unknown }> = [];
    try {
      const checkpoints = openCheckpoints(options.dbPath);
      opened.push(...Object.values(checkpoints));
      const logOptions = { dbPath: options.dbPath, chunkSizeBytes: options.chunkSizeBytes, cachedChunksMax: options.cachedChunksMax, logger };
      await Engine.applyTruncation(checkpoints, logOptions, logger);
      const { writer, chaser, epoch } = checkpoints;
      if (epoch.value >= writer.value) {
        throw Errors.storageCheckpoint.create(`epoch.chk ${epoch.value} is past writer.chk ${writer.value}`);
      }
      if (chaser.value > writer.value) {
        // chaser.chk only says how far the log was processed: past the writer it is simply wrong,
        // and the log below writer.chk is processed again.
        logger.warn({ chaser: chaser.value, writer: writer.value }, 'chaser.chk is past writer.chk; moving it back');
        chaser.write(writer.value);
      }
      const log = await TransactionLog.open(logOptions, writer.value);
      opened.push(log);
      if (log.writerPosition !== writer.value) writer.write(log.writerPosition);
      const index = await TableIndex.open({
        directory: options.indexPath, memTableEntriesMax: options.memTableEntriesMax, hasher: options.streamHasher,
        // Children of the process logger, not of the storage one: a second `component` binding
        // would put the key twice on every line.
        logger: options.logger.child({ component: 'index' }),
      });
      opened.push(index);
      const existence = options.existenceFilterSizeBytes === 0 ? disabledExistenceFilter : await StreamExistenceFilter.open({
        directory: join(options.indexPath, 'stream-existence'), sizeBytes: options.existenceFilterSizeBytes,
        hasher: options.streamHasher, logger: options.logger.child({ component: 'existence-filter' }),
      });
      opened.push(existence);
      await Engine.catchUpIndex(log, index, existence, options.memTableEntriesMax, logger);
      const engine = new Engine(options, lock, checkpoints, log, index, existence, logger);
      await engine.start();
      return engine;
    } catch (error) {
      for (const resource of opened.reverse()) await Promise.resolve(resource.close()).catch(() => undefined);
      throw error;
    }
  }

  /** Cuts the log back to truncate.chk (set by a restore) and lowers the other checkpoints. */
  private static async applyTruncation(checkpoints: Checkpoints, logOptions: Parameters<typeof TransactionLog.truncate>[0], logger: Logger): Promise<void> {
    const { truncate, writer, chaser, epoch } = checkpoints;
    if (truncate.value < 0) return;
    if (truncate.value > writer.value) {
      logger.warn({ truncate: truncate.value, writer: writer.value }, 'truncate.chk is past the end of the log; nothing to truncate');
    } else {
      const end = await TransactionLog.truncate(logOptions, truncate.value);
      writer.write(Math.min(writer.value, end));
      chaser.write(Math.min(chaser.value, end));
      if (epoch.value >= end) epoch.write(-1);
      logger.warn({ position: end }, 'truncated the log to truncate.chk');
    }
    truncate.write(-1);
  }

  /**
   * The index files cover the log up to the index's commit position and the existence filter
   * up to its checkpoint; what lies between those and the writer is re-added from the log.
   */
  private static async catchUpIndex(log: TransactionLog, index: TableIndex, existence: ExistenceFilter, memTableEntriesMax: number, logger: Logger): Promise<void> {
    const end = log.writerPosition;
    if (index.commitPosition > end) {
      logger.warn({ indexPosition: index.commitPosition, writer: end }, 'the index is ahead of the log; rebuilding it');
      await index.clear();
    }
    if (existence.checkpoint > end) existence.moveCheckpointBack(end);
    const indexFrom = index.commitPosition;
    const filterFrom = Math.max(existence.checkpoint, 0);
    const started = Date.now();
    let added = 0;
    // Committing as it goes lets full memory tables flush during a long rebuild.
    let commitAt = memTableEntriesMax;
    log.scan(Math.min(indexFrom, filterFrom), end, (buffer, offset, position) => {
      const key = peekEventKey(buffer, offset);
      if (!key) return;
      if (position >= indexFrom) {
        if (added >= commitAt) {
          index.commit(position);
          commitAt += memTableEntriesMax;
        }
        index.add(key.streamName, key.eventNumber, position);
        added++;
      }
      if (position >= filterFrom) existence.add(key.streamName);
    });
    index.commit(end);
    existence.commit(end);
    logger.info({ from: indexFrom, to: end, entries: added, ms: Date.now() - started }, 'index caught up with the log');
  }

  private async start(): Promise<void> {
    const epoch = await writeEpoch(this.log, this.checkpoints);
    this.epochNumber = epoch.epochNumber;
    this.epochPosition = epoch.epochPosition;
    this.epochId = epoch.epochId;
    this.publishPosition(this.log.writerPosition);
    this.chaserTimer = setInterval(() => void this.flushChaser(), CHASER_FLUSH_INTERVAL_MS).unref();
    this.logger.info({ epochNumber: epoch.epochNumber, position: epoch.epochPosition, chunks: this.log.chunkCount }, 'database opened');
    if (this.options.verifyChunks === 'blocking') await this.verifyChunks();
    else if (this.options.verifyChunks === 'background') void this.verifyChunks();
  }

  /** Checks every completed chunk's hash, newest first; a mismatch stops the engine. */
  private async verifyChunks(): Promise<void> {
    for (const chunk of this.log.completedChunks()) {
      if (this.state !== 'open') return;
      let intact: boolean;
      try {
        intact = await chunk.verifyHash();
      } catch (error) {
        if (this.state !== 'open') return;
        throw error;
      }
      if (!intact) {
        const error = Errors.storageChunkHash.create(chunk.path);
        this.fail(error);
        if (this.options.verifyChunks === 'blocking') throw error;
        return;
      }
    }
    this.logger.info({}, 'verified the hashes of all completed chunks');
  }

  private async flushChaser(): Promise<void> {
    if (this.state !== 'open' || this.checkpoints.chaser.value === this.chaserPosition) return;
    try {
      await this.checkpoints.chaser.writeAsync(this.chaserPosition);
    } catch (error) {
      // chaser.chk only saves work at the next start; a full disk postpones it to the next tick.
      if (isTransientStorageError(error)) return;
      this.fail(error as Error);
    }
  }

  /** Called by the writer once records are durable: index them, then let readers see them. */
  private publish(writes: CommittedWrite[], end: number): void {
    for (const write of writes) {
      const { streamName, firstEventNumber, positions, events } = write;
      for (let i = 0; i < positions.length; i++) this.index.add(streamName, firstEventNumber + i, positions[i]);
      this.existence.add(streamName);
      this.streams.committed(streamName, write.lastEventNumber);
      if (isMetadataStream(streamName)) this.streams.metadataCommitted(originalStreamOf(streamName), events[events.length - 1].data);
    }
    this.publishPosition(end);
    for (const hook of this.commitHooks) this.runCommitHook(hook, writes);
    this.consumers.committed();
  }

  /** A hook that throws is logged and dropped: it never fails the commit it was told of. */
  private runCommitHook(hook: (writes: CommittedWrite[]) => void, writes: CommittedWrite[]): void {
    try {
      hook(writes);
    } catch (error) {
      this.commitHooks.delete(hook);
      this.logger.error({ err: error }, 'a commit hook failed and was removed');
    }
  }

  private publishPosition(end: number): void {
    this.index.commit(end);
    this.existence.commit(end);
    this.log.publish(end);
    this.chaserPosition = end;
  }

  private fail(error: Error): void {
    if (this.state === 'failed' || this.state === 'closed') return;
    this.state = 'failed';
    this.failure = error;
    this.logger.error({ err: error, code: (error as { code?: string }).code }, 'storage engine stopped');
    this.events.emit('fatal', error);
  }

  onFatal(listener: (error: Error) => void): void {
    this.events.on('fatal', listener);
  }

  /**
   * Hears every group commit once it is durable and readable, before it is acknowledged: for
   * caches that must not answer from stale state after an acknowledged write (credentials, default
   * ACLs). A hook must be cheap and must not throw; one that throws is logged and removed.
   * Everything else that follows the log is a consumer (`follow`).
   */
  beforeAcknowledge(hook: (writes: CommittedWrite[]) => void): () => void {
    this.commitHooks.add(hook);
    return () => this.commitHooks.delete(hook);
  }

  /** Follows the log from a position: woken after each acknowledged commit, reading to catch up. */
  follow(options: ConsumerOptions): LogConsumer {
    this.checkOpen();
    return this.consumers.follow(options);
  }

  unfollow(consumer: LogConsumer): void {
    this.consumers.unfollow(consumer);
  }

  /**
   * A record that fails its checksum, or a malformed file, is never served and never ignored:
   * the caller gets the coded error and the engine stops.
   */
  private guardRead<T>(read: () => T): T {
    try {
      return read();
    } catch (error) {
      if (Errors.storageChecksum.is(error) || Errors.storageCorrupt.is(error)) this.fail(error);
      throw error;
    }
  }

  private checkOpen(): void {
    if (this.state === 'open') return;
    const reason = this.failure ? `stopped after an error: ${this.failure.message}` : `the engine is ${this.state}`;
    throw Errors.storageClosed.create(reason);
  }

  async append(streamName: string, expectedVersion: number, events: NewEvent[]): Promise<WriteResult> {
    this.checkOpen();
    checkStreamName(streamName);
    checkExpectedVersion(expectedVersion);
    const framedBytes = checkEvents(streamName, events, this.options.chunkSizeBytes);
    return this.writer.submit({ kind: 'append', streamName, expectedVersion, events, framedBytes });
  }

  /** Soft delete (reads answer not found; a new append revives the stream) or hard delete (tombstone, forever). */
  async deleteStream(streamName: string, expectedVersion: number, hard: boolean): Promise<WriteResult> {
    this.checkOpen();
    checkStreamName(streamName);
    checkExpectedVersion(expectedVersion);
    if (isMetadataStream(streamName)) throw Errors.invalidStreamName.create('a metadata stream cannot be deleted; delete its stream');
    if (!hard) return this.writer.submit({ kind: 'softDelete', streamName, expectedVersion, events: [] });
    const tombstone: NewEvent = { eventId: randomUUID(), eventType: TOMBSTONE_EVENT_TYPE, data: Buffer.alloc(0), metadata: Buffer.alloc(0), isJson: false };
    return this.writer.submit({ kind: 'hardDelete', streamName, expectedVersion, events: [tombstone] });
  }

  /**
   * Writes a new metadata event to `$$stream`; `expectedVersion` applies to the metadata stream.
   * The event type is `$metadata` unless the client named another (the wire protocol allows it).
   */
  async setStreamMetadata(
    streamName: string, expectedVersion: number, metadata: unknown, eventId: string = randomUUID(), eventType: string = METADATA_EVENT_TYPE,
  ): Promise<WriteResult> {
    this.checkOpen();
    checkStreamName(streamName);
    if (isMetadataStream(streamName)) throw Errors.invalidStreamName.create('a metadata stream has no metadata of its own; drop the leading $$');
    validateMetadata(metadata);
    const event: NewEvent = { eventId, eventType, data: Buffer.from(JSON.stringify(metadata)), metadata: Buffer.alloc(0), isJson: true };
    return this.append(metadataStreamOf(streamName), expectedVersion, [event]);
  }

  getStreamMetadata(streamName: string): { metadata: StreamMetadata; metastreamVersion: number; deleted: boolean } {
    this.checkOpen();
    checkStreamName(streamName);
    return {
      metadata: this.streams.metadata(streamName),
      metastreamVersion: this.streams.lastEventNumber(metadataStreamOf(streamName)),
      deleted: this.streams.lastEventNumber(streamName) === DELETED_EVENT_NUMBER,
    };
  }

  readEvent(streamName: string, eventNumber: number): EventRead {
    this.checkOpen();
    checkStreamName(streamName);
    checkPosition('event number', eventNumber, -1);
    return this.guardRead(() => this.reader.readEvent(streamName, eventNumber));
  }

  readStreamForward(streamName: string, fromEventNumber: number, maxCount: number): StreamPage {
    this.checkOpen();
    checkStreamName(streamName);
    checkPosition('event number', fromEventNumber, 0);
    checkCount(maxCount);
    return this.guardRead(() => this.reader.readForward(streamName, fromEventNumber, maxCount));
  }

  /** From `fromEventNumber` down; -1 starts at the last event. */
  readStreamBackward(streamName: string, fromEventNumber: number, maxCount: number): StreamPage {
    this.checkOpen();
    checkStreamName(streamName);
    checkPosition('event number', fromEventNumber, -1);
    checkCount(maxCount);
    return this.guardRead(() => this.reader.readBackward(streamName, fromEventNumber, maxCount));
  }

  readAllForward(position: number, maxCount: number, filter?: AllFilter): AllPage {
    this.checkOpen();
    checkPosition('position', position, 0);
    checkCount(maxCount);
    return this.guardRead(() => this.reader.readAllForward(position, maxCount, filter));
  }

  /** From the record before `position` down; -1 starts at the end of the log. */
  readAllBackward(position: number, maxCount: number, filter?: AllFilter): AllPage {
    this.checkOpen();
    checkPosition('position', position, -1);
    checkCount(maxCount);
    return this.guardRead(() => this.reader.readAllBackward(position, maxCount, filter));
  }

  /** The admin merge: every index file into one. */
  async mergeIndexes(): Promise<void> {
    this.checkOpen();
    await this.index.mergeAll();
  }

  status(): EngineStatus {
    return {
      state: this.state,
      writerPosition: this.log.readableEnd,
      chaserPosition: this.chaserPosition,
      epochNumber: this.epochNumber,
      epochPosition: this.epochPosition,
      epochId: this.epochId,
      chunkCount: this.log.chunkCount,
    };
  }

  /** Resolves when index flushes and merges started so far are done. */
  async settleIndex(): Promise<void> {
    await this.index.waitForBackgroundWork();
  }

  indexStats(): ReturnType<TableIndex['stats']> {
    return this.index.stats();
  }

  /** Counters for operators (/stats, /metrics): plain numbers, cheap to take at any time. */
  stats(): EngineStatistics {
    const flushes = this.writer.flushMeter;
    const reads = this.log.reads;
    const index = this.index.stats();
    return {
      writerCheckpoint: this.checkpoints.writer.value,
      writerPosition: this.log.writerPosition,
      chaserCheckpoint: this.checkpoints.chaser.value,
      writerQueue: this.writer.queueMeter.snapshot(),
      flushes: {
        count: flushes.flushes, bytesTotal: flushes.bytesTotal, lastBytes: flushes.lastBytes, maxBytes: flushes.maxBytes,
        msTotal: flushes.msTotal, lastMs: flushes.lastMs, maxMs: flushes.maxMs, refused: flushes.refusedCount,
      },
      reads: {
        recordsFromMemory: reads.recordsFromMemory, recordsFromFile: reads.recordsFromFile,
        streamInfoCacheHits: reads.streamInfoCacheHits, streamInfoCacheMisses: reads.streamInfoCacheMisses,
        hashCollisions: reads.hashCollisions,
      },
      index: {
        memTableEntries: index.memTableEntries, frozenMemTables: index.frozenMemTables, files: index.files.length,
        commitPosition: index.commitPosition,
      },
      chunkCount: this.log.chunkCount,
      consumers: this.consumers.statuses(),
    };
  }

  private persistChaserOnClose(): void {
    try {
      this.checkpoints.chaser.write(this.chaserPosition);
    } catch (error) {
      if (!isTransientStorageError(error)) throw error;
      this.logger.warn({ code: (error as { code?: string }).code }, 'chaser.chk not updated at close: the disk is full; the next start re-reads a little more of the log');
    }
  }

  /** Finishes queued writes, persists the chaser, closes files and releases the lock. */
  async close(): Promise<void> {
    if (this.state === 'closing' || this.state === 'closed') return;
    const failed = this.state === 'failed';
    this.state = 'closing';
    this.consumers.close();
    clearInterval(this.chaserTimer);
    await this.writer.drained();
    if (!failed) this.persistChaserOnClose();
    await this.index.close();
    if (!failed) await this.existence.close();
    await this.log.close();
    for (const checkpoint of Object.values(this.checkpoints)) await checkpoint.close();
    this.lock.release();
    this.state = 'closed';
  }
}
