import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { Errors } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import { resolveEngineOptions, type EngineOptions, type ResolvedEngineOptions } from './engine-options.js';
import { epochAt, writeEpoch, type Epoch } from './log/epoch.js';
import { ChaserFlush } from './log/chaser-flush.js';
import { verifyCompletedChunks } from './log/chunk-verification.js';
import type { ExistenceFilter } from './index/existence-filter.js';
import type { TableIndex } from './index/table-index.js';
import { DatabaseLock } from './disk/lock.js';
import { Reader, systemStreamFilter, type AllFilter, type AllPage, type EventRead, type ForwardPages, type StreamPage } from './read/reader.js';
import { checkEvents, checkExpectedVersion, checkStreamName, checkCount, checkPosition, checkWritableStream } from './streams/request-checks.js';
import { StreamLookup } from './streams/stream-info.js';
import {
  DELETED_EVENT_NUMBER, ExpectedVersion, METADATA_EVENT_TYPE, TOMBSTONE_EVENT_TYPE, isMetadataStream, metadataStreamOf,
  originalStreamOf, metadataProblem, type StreamMetadata,
} from './streams/stream-metadata.js';
import type { TransactionLog } from './log/transaction-log.js';
import { checkpointList, type Checkpoints } from './log/recovery.js';
import { recover, type Recovered } from './engine-recovery.js';
import { LogAppender } from './log/appender.js';
import { StreamDecider } from './streams/decider.js';
import type { StreamWrite } from './streams/stream-write.js';
import type { AppendOptions, CommittedWrite, NewEvent, WriteRequest, WriteResult } from './streams/write-types.js';
import { engineStatistics, type EngineStatistics } from './engine-stats.js';
import { randomUUID } from 'node:crypto';
import { BackgroundTurns, CLIENT_READ_SHARE, LogConsumers, type ConsumerOptions, type LogConsumer } from './read/log-consumers.js';
import { CommitHooks, type CommitHook } from './read/commit-hooks.js';
import type { ReplaceOptions, ReplacementValidator } from './log/chunk-replacement.js';
import type { RewriteOptions, RewriteResult } from './maintenance/chunk-rewrite.js';
import type { RecordHead } from './log/record.js';
import type { ChunkSwitchHold, ChunkSwitchHolderKind } from './log/chunk-switch-lock.js';
import { eventPositions, type EventPosition } from './read/event-positions.js';
import type { CheckedCopy } from './maintenance/redacted-chunk-check.js';
import { isLenientJson } from '../common/lenient-json.js';
import type { ScavengeAccess } from './maintenance/scavenge/access.js';
import { scavengeAccessOf } from './maintenance/scavenge/engine-access.js';
import { ChunkSwitches } from './maintenance/chunk-switches.js';
import { RedactionSwitches, type RedactedCopy } from './maintenance/redaction-switches.js';
import { PRIVATE_DIRECTORY_MODE } from './disk/file-modes.js';
import { ReplicaAppender } from './log/replica-appender.js';
import { LogBytes } from './read/log-bytes.js';
import { replicatedWrites } from './streams/replicated-writes.js';
import { WarmedWrites } from './streams/warmed-writes.js';
import { readOffLoop, warmOffLoop } from './disk/cold-reads.js';

export type EngineState = 'open' | 'closing' | 'closed' | 'failed';

export interface EngineStatus {
  state: EngineState;
  /**
   * The end of the durable log: every record below it is on disk and readable, and indexed (the
   * index takes each commit as it is published, so it is also how far the chaser has processed).
   */
  readableEnd: number;
  epochNumber: number;
  /** Log position and id of this start's epoch record (-1 and '' before it is written). */
  epochPosition: number;
  epochId: string;
  /** Chunk numbers the log spans, the ongoing chunk's included; a file a scavenge merged covers several. */
  chunkCount: number;
  /** Chunks replaced (rewritten) since the engine opened: cached record bytes may be stale. */
  chunkReplacements: number;
  /** Changes with every chunk replacement, restarts included (TransactionLog.contentEpoch). */
  contentEpoch: number;
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
  private readonly chaser: ChaserFlush;
  /** This start's epoch record, once written. */
  private epoch: Epoch | undefined;
  /** The log appender, deciding each write with the stream rules. */
  private readonly writer: LogAppender<WriteRequest, WriteResult, StreamWrite>;
  private readonly reader: Reader;
  private readonly streams: StreamLookup;
  /** Writes go to the writer with their streams' state in memory, in the order they came. */
  private readonly warmedWrites: WarmedWrites;
  private readonly commitHooks: CommitHooks;
  private readonly consumers: LogConsumers;
  /** Turns of clients' reads while appends wait for the writer. */
  private readonly clientReads: BackgroundTurns;
  /** The chunk-replacement seam scavenge and redaction share, with its lock. */
  private readonly switches: ChunkSwitches;
  private readonly redactions: RedactionSwitches;
  private replica: ReplicaAppender | undefined;

  private readonly checkpoints: Checkpoints;
  private readonly log: TransactionLog;
  private readonly index: TableIndex;
  private readonly existence: ExistenceFilter;
  /** The database's chunk size, from its first chunk (the configured one for a new database). */
  private readonly chunkSizeBytes: number;

  private constructor(
    private readonly options: ResolvedEngineOptions,
    private readonly lock: DatabaseLock,
    recovered: Recovered,
    private readonly logger: Logger,
  ) {
    const { checkpoints, log, index, existence } = recovered;
    this.checkpoints = checkpoints;
    this.log = log;
    this.index = index;
    this.existence = existence;
    this.chunkSizeBytes = log.chunkSize;
    this.streams = new StreamLookup(log, index, existence, options.streamInfoCacheCapacity, log.reads);
    this.reader = new Reader(log, this.streams, options.clock);
    this.warmedWrites = new WarmedWrites((streamName) => warmOffLoop(() => this.guardRead(() => this.streams.warmForWrite(streamName))));
    this.writer = new LogAppender(
      log, checkpoints.writer,
      new StreamDecider(this.streams, options.recentEventIdsMax, options.clock),
      (writes, end) => this.publish(writes, end),
      (error) => this.fail(error),
    );
    this.chaser = new ChaserFlush(checkpoints.chaser, checkpoints.writer, () => this.log.readableEnd, () => this.state === 'open', (error) => this.fail(error), logger);
    // A failed flush or merge of the index stops the engine now, not at the next append.
    index.onFailure((error) => this.fail(error));
    this.events.setMaxListeners(0);
    this.commitHooks = new CommitHooks(logger);
    this.consumers = new LogConsumers({
      readAllForward: (position, maxCount, skipSystemStreams) =>
        readOffLoop(() => this.guardRead(() => this.reader.readAllForward(position, maxCount, systemStreamFilter(skipSystemStreams)))),
      readableEnd: () => this.log.readableEnd,
      commitWithClientsWaiting: () => this.writer.commitWithClientsWaiting(),
    }, logger);
    this.clientReads = new BackgroundTurns({ commitWithClientsWaiting: () => this.writer.commitWithClientsWaiting() }, undefined, CLIENT_READ_SHARE);
    const checkOpen = () => this.checkOpen();
    this.switches = new ChunkSwitches({
      log, dbPath: options.dbPath, checkOpen, fail: (error) => this.fail(error), switched: () => this.streams.forgetAll(),
    });
    this.redactions = new RedactionSwitches(log, options.dbPath, this.switches, checkOpen);
  }

  static async open(engineOptions: EngineOptions): Promise<Engine> {
    const options = resolveEngineOptions(engineOptions);
    const logger = options.logger.child({ component: 'storage' });
    mkdirSync(options.dbPath, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
    mkdirSync(options.indexPath, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
    const lock = DatabaseLock.acquire(options.dbPath);
    try {
      const recovered = await recover(options, logger);
      const engine = new Engine(options, lock, recovered, logger);
      try {
        await engine.start();
      } catch (error) {
        await recovered.close();
        throw error;
      }
      return engine;
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  private async start(): Promise<void> {
    // A replica's epochs are the leader's, written with the rest of its log.
    this.epoch = this.options.replica ? epochAt(this.log, this.checkpoints.epoch.value) : await writeEpoch(this.log, this.checkpoints, this.options.epochNumberAtLeast);
    this.publishPosition(this.log.writerPosition);
    this.logger.info({ epochNumber: this.epoch?.epochNumber ?? -1, position: this.epoch?.epochPosition ?? -1, replica: this.options.replica, chunks: this.log.chunkCount }, 'database opened');
    if (this.options.verifyChunks === 'blocking') await this.verifyChunks();
    // Set once the start can no longer fail: a refused start has no engine to close the timer.
    this.chaser.start();
    if (this.options.verifyChunks === 'background') void this.verifyChunks();
  }

  /** Checks every completed chunk's hash, newest first; a mismatch stops the engine. */
  private async verifyChunks(): Promise<void> {
    const found = await verifyCompletedChunks(this.log, () => this.state !== 'open');
    if (found === 'stopped') return;
    if (found === 'verified') {
      this.logger.info({}, 'verified the hashes of all completed chunks');
      return;
    }
    const error = Errors.storageChunkHash.create(found.path);
    this.fail(error);
    if (this.options.verifyChunks === 'blocking') throw error;
  }

  /** Called by the writer once records are durable: index them, then let readers see them. */
  private publish(writes: CommittedWrite[], end: number): void {
    for (const write of writes) {
      const { streamName, firstEventNumber, positions, events } = write;
      for (let i = 0; i < positions.length; i++) this.index.add(streamName, firstEventNumber + i, positions[i]);
      this.existence.add(streamName);
      this.streams.committed(streamName, write.lastEventNumber);
      if (isMetadataStream(streamName)) {
        const last = events[events.length - 1];
        this.streams.metadataCommitted(originalStreamOf(streamName), last.data, last.isJson);
      }
    }
    this.publishPosition(end);
    this.commitHooks.committed(writes);
    this.consumers.committed();
  }

  private publishPosition(end: number): void {
    this.index.commit(end);
    this.existence.commit(end);
    this.log.publish(end);
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
  beforeAcknowledge(hook: CommitHook): () => void {
    return this.commitHooks.add(hook);
  }

  /** Follows the log from a position: woken after each acknowledged commit, reading to catch up. */
  /**
   * Waits for a client's read of the log to have its turn: at once unless clients' appends wait
   * for the writer; then one read at a time, each at the end of a group commit, within
   * CLIENT_READ_SHARE of the time, so that readers scanning the log cannot starve appends of the
   * event loop. Call the function it resolves with once the read's reply is built, and before
   * waiting for anything else (a long poll).
   */
  async readTurn(): Promise<() => void> {
    const reader = {};
    await this.clientReads.take(reader);
    return () => this.clientReads.finish(reader);
  }

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

  /** A replica's log is the leader's: nothing else writes it. */
  private checkWritable(what: string): void {
    if (this.options.replica) throw Errors.replicaReadOnly.create(what);
  }

  async append(streamName: string, expectedVersion: number, events: NewEvent[], options?: AppendOptions): Promise<WriteResult> {
    this.checkOpen();
    this.checkWritable('appended to');
    checkStreamName(streamName);
    checkWritableStream(streamName, 'appended to');
    checkExpectedVersion(expectedVersion);
    const framedBytes = checkEvents(streamName, events, this.chunkSizeBytes);
    const followUp = options?.followUp === true;
    return this.warmedWrites.submit(streamName, () => this.writer.submit({ kind: 'append', streamName, expectedVersion, events, framedBytes, followUp }, followUp));
  }

  /**
   * Completes the ongoing chunk through the writer, after everything queued before it, so that
   * the records written so far (a scavenge point) close their chunk; a new chunk begins. Returns
   * the log position the new chunk begins at. An empty ongoing chunk is left as it is.
   */
  async completeActiveChunk(): Promise<number> {
    this.checkOpen();
    this.checkWritable('asked to complete a chunk');
    const result = await this.writer.submit({ kind: 'completeChunk', streamName: '', expectedVersion: ExpectedVersion.any, events: [] });
    return result.logPosition;
  }

  /** Soft delete (reads answer not found; a new append revives the stream) or hard delete (tombstone, forever). */
  async deleteStream(streamName: string, expectedVersion: number, hard: boolean): Promise<WriteResult> {
    this.checkOpen();
    this.checkWritable('asked to delete a stream');
    checkStreamName(streamName);
    checkWritableStream(streamName, 'deleted');
    checkExpectedVersion(expectedVersion);
    if (isMetadataStream(streamName)) throw Errors.invalidStreamName.create('a metadata stream cannot be deleted; delete its stream');
    if (!hard) return this.warmedWrites.submit(streamName, () => this.writer.submit({ kind: 'softDelete', streamName, expectedVersion, events: [] }));
    const tombstone: NewEvent = { eventId: randomUUID(), eventType: TOMBSTONE_EVENT_TYPE, data: Buffer.alloc(0), metadata: Buffer.alloc(0), isJson: false };
    return this.warmedWrites.submit(streamName, () => this.writer.submit({ kind: 'hardDelete', streamName, expectedVersion, events: [tombstone] }));
  }

  /**
   * Writes a new metadata event to `$$stream`; `expectedVersion` applies to the metadata stream.
   * Bytes are stored as sent, flagged JSON when they are JSON; a JSON object whose system
   * properties do not parse is refused, after the stream's own checks (deleted, expected version).
   * Anything else that is not a JSON object is stored and means no metadata. An object is the
   * node's own metadata, serialized here. The event type is `$metadata` unless the client named
   * another (the wire protocol allows it).
   */
  async setStreamMetadata(
    streamName: string, expectedVersion: number, metadata: Buffer | Record<string, unknown>, eventId: string = randomUUID(),
    eventType: string = METADATA_EVENT_TYPE,
  ): Promise<WriteResult> {
    this.checkOpen();
    this.checkWritable('asked to write stream metadata');
    checkStreamName(streamName);
    checkExpectedVersion(expectedVersion);
    if (isMetadataStream(streamName)) throw Errors.invalidStreamName.create('a metadata stream has no metadata of its own; drop the leading $$');
    const data = Buffer.isBuffer(metadata) ? metadata : Buffer.from(JSON.stringify(metadata));
    const text = data.toString('utf8');
    const isJson = isLenientJson(text);
    const event: NewEvent = { eventId, eventType, data, metadata: Buffer.alloc(0), isJson };
    const metadataStream = metadataStreamOf(streamName);
    const framedBytes = checkEvents(metadataStream, [event], this.chunkSizeBytes);
    const check = () => {
      const problem = isJson && text.trimStart().startsWith('{') ? metadataProblem(text) : undefined;
      return problem === undefined ? undefined : Errors.invalidArgument.create('stream metadata', problem);
    };
    return this.warmedWrites.submit(metadataStream, () => this.writer.submit({ kind: 'append', streamName: metadataStream, expectedVersion, events: [event], framedBytes, check }));
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

  /** Up to `maxCount` visible events from `fromEventNumber` on; `pages` as in Reader.readForward. */
  readStreamForward(streamName: string, fromEventNumber: number, maxCount: number, pages: ForwardPages = 'skipHidden'): StreamPage {
    this.checkOpen();
    checkStreamName(streamName);
    checkPosition('event number', fromEventNumber, 0);
    checkCount(maxCount);
    return this.guardRead(() => this.reader.readForward(streamName, fromEventNumber, maxCount, pages));
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

  /**
   * Switches in a rewritten chunk (`tempPath`, a `*.tmp` file in the database directory) for the
   * completed chunks it covers, once `validate` accepts it (by default: a copy whose every record
   * is the original's). One replacement at a time: scavenge and redaction exclude each other here.
   */
  replaceChunks(tempPath: string, options: ReplaceOptions & { validate?: ReplacementValidator } = {}, hold?: ChunkSwitchHold): Promise<void> {
    return this.switches.replace(tempPath, options.validate, options, hold);
  }

  /**
   * Takes the chunk-switch lock for a scavenge or a redaction, to hold across many switches;
   * refused with SVCDB_ERR_CHUNK_SWITCH_LOCKED, naming the holder's kind, while another holds it.
   */
  takeChunkSwitchLock(kind: ChunkSwitchHolderKind): ChunkSwitchHold {
    return this.switches.take(kind);
  }

  /** Releases the lock `hold` (or its id) holds; false when it does not hold it (any more). */
  releaseChunkSwitchLock(hold: ChunkSwitchHold | string): boolean {
    return this.switches.release(hold);
  }

  /** Who holds the chunk-switch lock now: a running scavenge or redaction, or nobody. */
  chunkSwitchHolder(): ChunkSwitchHold | undefined {
    return this.switches.holder;
  }

  /** The hold an id names, while it holds the lock. */
  chunkSwitchHoldOf(id: string): ChunkSwitchHold | undefined {
    return this.switches.holdOf(id);
  }

  /** Every record of the event (duplicates too), with its chunk file and offset: what the redactor edits. */
  eventPositions(streamName: string, eventNumber: number): EventPosition[] {
    this.checkOpen();
    checkStreamName(streamName);
    checkPosition('event number', eventNumber, 0);
    return this.guardRead(() => eventPositions(this.log, this.index, streamName, eventNumber));
  }

  /** Checks up to four redacted copies against their targets in one pass (RedactionSwitches.checkCopies). */
  checkRedactedCopies(copies: readonly RedactedCopy[], hold: ChunkSwitchHold, stopped?: () => Error | undefined): Promise<Array<CheckedCopy | Error>> {
    return this.redactions.checkCopies(copies, hold, stopped);
  }

  /**
   * Switches in `tempPath`, a redacted copy of the chunk file `targetFileName`, checked now or by
   * checkRedactedCopies (`checked`); returns the chunk's file name now (RedactionSwitches.switchChunk).
   */
  switchRedactedChunk(
    targetFileName: string, tempPath: string, hold: ChunkSwitchHold, onStep?: ReplaceOptions['onStep'], checked?: CheckedCopy,
  ): Promise<string> {
    return this.redactions.switchChunk({ targetFileName, tempPath }, hold, onStep, checked);
  }

  /** Rewrites completed chunks keeping the records `keep` accepts, and switches the result in (ChunkSwitches.rewrite). */
  rewriteChunks(
    startNumber: number, endNumber: number, keep: (record: RecordHead) => boolean, options: RewriteOptions = {}, hold?: ChunkSwitchHold,
  ): Promise<RewriteResult> {
    return this.switches.rewrite(startNumber, endNumber, keep, options, hold);
  }

  /** What a scavenge works with: chunks, records, the index and the chunk-switch seam. */
  scavengeAccess(): ScavengeAccess {
    this.checkOpen();
    return scavengeAccessOf({
      log: this.log, index: this.index, streams: this.streams, switches: this.switches,
      streamHash: this.options.streamHasher,
      completeActiveChunk: () => this.completeActiveChunk(),
      commitWithClientsWaiting: () => this.writer.commitWithClientsWaiting(),
      checkOpen: () => this.checkOpen(),
      guardRead: (read) => this.guardRead(read),
    });
  }

  /** The writer of a replica's log, which takes the leader's bytes (ReplicaAppender); once per engine. */
  replicaAppender(): ReplicaAppender {
    this.checkOpen();
    if (!this.options.replica) throw new TypeError('replicaAppender() on an engine that is not a replica');
    this.replica ??= new ReplicaAppender(this.options.dbPath, this.log, this.checkpoints, (from, to) => {
      this.log.publish(to);
      this.publish(replicatedWrites(this.log, from, to), to);
    }, (error) => this.fail(error));
    return this.replica;
  }

  /** The log as bytes, for replicas to copy (LogBytes). */
  logBytes(): LogBytes {
    this.checkOpen();
    return new LogBytes(this.log, () => this.checkpoints.epoch.value);
  }

  /** The admin merge: every index file into one. */
  async mergeIndexes(): Promise<void> {
    this.checkOpen();
    await this.index.mergeAll();
  }

  status(): EngineStatus {
    return {
      state: this.state,
      readableEnd: this.log.readableEnd,
      epochNumber: this.epoch?.epochNumber ?? -1,
      epochPosition: this.epoch?.epochPosition ?? -1,
      epochId: this.epoch?.epochId ?? '',
      chunkCount: this.log.chunkCount,
      chunkReplacements: this.log.replacementCount,
      contentEpoch: this.log.contentEpoch,
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
    const { log, checkpoints, writer, index, consumers } = this;
    return engineStatistics({ log, writerCheckpoint: checkpoints.writer, chaserCheckpoint: checkpoints.chaser, appender: this.replica?.meters ?? writer, index, consumers });
  }

  /**
   * Finishes queued writes, persists the chaser, closes files and releases the lock. A step that
   * fails (the chaser cannot be written: the directory is gone) does not skip the ones after it:
   * every file is closed, then the first failure is thrown.
   */
  async close(): Promise<void> {
    if (this.state === 'closing' || this.state === 'closed') return;
    const failed = this.state === 'failed';
    this.state = 'closing';
    this.consumers.close();
    this.chaser.stop();
    let firstError: Error | undefined;
    const step = async (run: () => unknown): Promise<void> => {
      try {
        await run();
      } catch (error) {
        firstError ??= error as Error;
      }
    };
    await step(() => this.writer.drained());
    await step(() => this.replica?.drained());
    if (!failed) await step(() => this.chaser.persistOnClose());
    await step(() => this.index.close());
    if (!failed) await step(() => this.existence.close());
    await step(() => this.log.close());
    for (const checkpoint of checkpointList(this.checkpoints)) await step(() => checkpoint.close());
    await step(() => this.lock.release());
    this.state = 'closed';
    if (firstError !== undefined) throw firstError;
  }
}
