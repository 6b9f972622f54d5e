/**
 * The log appender of a read-only replica: it writes the leader's bytes at the leader's
 * positions and knows nothing of streams. Records arrive already decided (the leader's stream
 * rules made them), whole completed chunks arrive as files, and the ongoing chunk takes the
 * leader's header, so that every completed chunk ends byte for byte as the leader's.
 *
 * Each step is durable before it counts: bytes are fsynced, then writer.chk moves, then
 * `onDurable` indexes and publishes them. Steps run in call order: record frames go to the log
 * appender without waiting for the ones before them (they share group commits); any other step
 * waits until the records before it are durable.
 */
import { randomUUID } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Errors } from '../../common/errors.js';
import { fileSystem } from '../disk/file-system.js';
import { PRIVATE_FILE_MODE } from '../disk/file-modes.js';
import { storageError, writeFully } from '../disk/file-write.js';
import { LogAppender, type AppendPlan, type AppendPlanner, type AppendUnit } from './appender.js';
import { decodeChunkHeader, type ChunkHeader } from './chunk-format.js';
import { chunkFileName } from '../layout.js';
import type { Checkpoints } from './recovery.js';
import { FRAME_LOG_POSITION_OFFSET, RecordKind, SystemKind, checkFrame, decodeRecord, peekEventKey } from './record.js';
import { readInt64 } from './int64.js';
import type { TransactionLog } from './transaction-log.js';

/** Where the replica's log stands: what it asks the leader for next. */
export interface ReplicaPosition {
  /** writer.chk: the end of what is durable. */
  writerCheckpoint: number;
  /** The ongoing chunk's number and the bytes of data it holds. */
  chunkNumber: number;
  chunkDataBytes: number;
}

/** A chunk file on its way from the leader. */
export interface IncomingChunkFile {
  write(bytes: Buffer): Promise<void>;
  /** Makes the file durable and puts it in place of the ongoing chunk. */
  install(): Promise<void>;
  /** Deletes the file (the transfer broke off). */
  discard(): Promise<void>;
}

/** An incoming chunk file is fsynced in the background each time this share of a chunk arrived. */
const SYNC_BEHIND_SHARE = 1 / 8;

type ReplicaSubmission = { kind: 'records'; position: number; bytes: Buffer } | { kind: 'completeChunk' };

/** The leader's records, copied as they are to the position they were written at. */
class LeaderRecords implements AppendUnit {
  readonly framedBytes: number;

  constructor(readonly position: number, private readonly bytes: Buffer) {
    this.framedBytes = bytes.length;
  }

  encode(target: Buffer, offset: number, position: number): number {
    if (position !== this.position) throw new TypeError(`the leader's records of ${this.position} would go to ${position}`);
    return this.bytes.copy(target, offset);
  }
}

/**
 * Decides nothing of streams: records go where the leader put them, or are refused when they
 * would not (they do not follow the log, or do not fit in its chunk: the leader completed the
 * chunk before them, and its completion must come first).
 */
class ReplicaPlanner implements AppendPlanner<ReplicaSubmission, void, LeaderRecords> {
  /** Bytes planned in the commit under way; -1 once it completes a chunk (positions restart). */
  private planned = 0;

  constructor(private readonly log: TransactionLog) {}

  beginCommit(): void {
    this.planned = 0;
  }

  plan(submission: ReplicaSubmission, commitStart: number): AppendPlan<void, LeaderRecords> {
    if (submission.kind === 'completeChunk') {
      this.planned = -1;
      return { kind: 'completeChunk', answer: () => undefined };
    }
    const { position, bytes } = submission;
    const at = commitStart + this.planned;
    if (this.planned < 0 || position !== at) {
      return { kind: 'refuse', error: Errors.replicationProtocol.create(`records at ${position} do not follow the replica's log, which ends at ${at}`) };
    }
    if (!this.log.fits(this.planned + bytes.length)) {
      return { kind: 'refuse', error: Errors.replicationProtocol.create(`${bytes.length} bytes at ${position} do not fit in the ongoing chunk`) };
    }
    this.planned += bytes.length;
    return { kind: 'write', units: [new LeaderRecords(position, bytes)], result: undefined };
  }

  encoded(): void {}

  rolledBack(): void {}

  endCommit(): void {
    this.planned = 0;
  }
}

export class ReplicaAppender {
  private queue: Promise<unknown> = Promise.resolve();

  /** What writes records and completes chunks: the log appender, with no stream rules. */
  private readonly appender: LogAppender<ReplicaSubmission, void, LeaderRecords>;

  constructor(
    private readonly dbPath: string,
    private readonly log: TransactionLog,
    private readonly checkpoints: Checkpoints,
    /** Records from `from` to `to` are durable: index and publish them. */
    private readonly onDurable: (from: number, to: number) => void,
    /** A write that failed part way: the engine stops (never retry an fsync). */
    private readonly onFatal: (error: Error) => void,
  ) {
    this.appender = new LogAppender(log, checkpoints.writer, new ReplicaPlanner(log), (units, end) => {
      onDurable(units.length > 0 ? units[0].position : end, end);
    }, onFatal);
  }

  /** Resolves when nothing is being written. */
  drained(): Promise<void> {
    return this.queue.then(() => this.appender.drained());
  }

  /** The log appender's meters: on a replica, its group commits are the node's. */
  get meters(): Pick<LogAppender<ReplicaSubmission, void, LeaderRecords>, 'queueMeter' | 'flushMeter'> {
    return this.appender;
  }

  position(): ReplicaPosition {
    const chunk = this.log.currentChunk;
    return { writerCheckpoint: this.checkpoints.writer.value, chunkNumber: chunk.chunkNumber, chunkDataBytes: chunk.dataSize };
  }

  /** The header of the ongoing chunk, to compare with the leader's. */
  currentHeader(): ChunkHeader {
    return this.log.currentChunk.header;
  }

  /**
   * The leader's header for the ongoing chunk. An empty chunk is made anew with it; a chunk that
   * already holds records must have it already (it was begun from the same header).
   */
  adoptHeader(headerBytes: Buffer): Promise<void> {
    return this.afterRecords(async () => {
      const header = decodeChunkHeader(headerBytes);
      if (typeof header === 'string') throw Errors.replicationProtocol.create(`the leader sent a chunk header that does not decode: ${header}`);
      const current = this.log.currentChunk;
      if (current.chunkNumber !== header.startNumber) {
        throw Errors.replicationProtocol.create(`the leader sent the header of chunk ${header.startNumber}; the replica is at chunk ${current.chunkNumber}`);
      }
      if (current.header.chunkId === header.chunkId) return;
      if (current.dataSize > 0) {
        throw Errors.replicationDiverged.create(`chunk ${current.chunkNumber} holds records under another chunk id than the leader's`);
      }
      await this.durably(() => this.log.adoptChunkHeader(header));
    });
  }

  /**
   * Appends the leader's records, whole frames that start at `position`, which must be the
   * replica's writer position, through the log appender. Every frame is checked (length,
   * checksum, its own position) before anything is written.
   */
  appendRecords(position: number, bytes: Buffer): Promise<void> {
    // Handed to the log appender in call order, behind any other step under way, but without
    // waiting for the records before them to be durable: frames that arrive while a commit is
    // flushed share the next one (one fsync for many of the leader's commits). The promise is
    // wrapped so that the step ends when the records are queued, not when they are durable.
    const queued = this.serially(async () => ({
      lastEpoch: checkRecords(bytes, position),
      durable: this.appender.submit({ kind: 'records', position, bytes }),
    }));
    return queued.then(async ({ lastEpoch, durable }) => {
      await durable;
      if (lastEpoch !== undefined) this.noteEpoch(lastEpoch.position, lastEpoch.number);
    });
  }

  /**
   * Completes the ongoing chunk where the leader completed its own, through the log appender,
   * and checks that the file's hash is the leader's: the same header and bytes make the same file.
   */
  completeChunk(chunkNumber: number, dataBytes: number, leaderHash: Buffer): Promise<void> {
    return this.afterRecords(async () => {
      const chunk = this.log.currentChunk;
      if (chunk.chunkNumber !== chunkNumber || chunk.dataSize !== dataBytes || dataBytes === 0) {
        throw Errors.replicationProtocol.create(
          `the leader completed chunk ${chunkNumber} at ${dataBytes} bytes; the replica's chunk ${chunk.chunkNumber} holds ${chunk.dataSize}`,
        );
      }
      await this.appender.submit({ kind: 'completeChunk' });
      const hash = await chunk.storedHash();
      if (!hash.equals(leaderHash)) {
        const error = Errors.replicationDiverged.create(`chunk ${chunkNumber} completed with hash ${hash.toString('hex')}, the leader's is ${leaderHash.toString('hex')}`);
        this.onFatal(error);
        throw error;
      }
    });
  }

  /**
   * Puts a completed chunk file of the leader's (`tempPath`, fsynced, in the database
   * directory, named `version` on the leader) in place of the ongoing chunk, then indexes what it
   * holds past what the replica had.
   */
  installChunk(tempPath: string, version: number): Promise<void> {
    return this.afterRecords(async () => {
      const from = this.log.writerPosition;
      await this.durably(async () => {
        const chunk = await this.log.installCompletedChunk(tempPath, version);
        // Its epochs are noted before writer.chk covers the chunk: a replica killed in between
        // names them at its next handshake (recovery keeps a completed chunk whose hash holds),
        // where without them it would cut back all it holds past its last epoch and copy it again.
        let lastEpoch: { position: number; number: number } | undefined;
        this.log.scan(Math.max(from, chunk.chunkNumber * this.log.chunkSize), this.log.writerPosition, (buffer, offset, at) => {
          lastEpoch = epochOf(buffer, offset, at) ?? lastEpoch;
        });
        if (lastEpoch !== undefined) this.noteEpoch(lastEpoch.position, lastEpoch.number);
        await this.checkpoints.writer.writeAsync(this.log.writerPosition);
      });
      this.onDurable(from, this.log.writerPosition);
    });
  }

  /**
   * A temporary file for a completed chunk of the leader's: written as it arrives, then fsynced
   * and installed (installChunk). A `*.tmp` left by a crash is deleted at the next start.
   */
  async receiveChunkFile(startNumber: number, version: number): Promise<IncomingChunkFile> {
    const path = join(this.dbPath, `${chunkFileName(startNumber, version)}.${randomUUID()}.replica.tmp`);
    let handle: FileHandle;
    try {
      handle = await fileSystem.open(path, 'w', PRIVATE_FILE_MODE);
    } catch (error) {
      throw storageError(path, 'create', error);
    }
    let written = 0;
    let unsynced = 0;
    /** Background fsyncs, one after the other; the first failure is kept for install. */
    let syncs: Promise<void> = Promise.resolve();
    let syncFailure: Error | undefined;
    let open = true;
    const close = async () => {
      if (!open) return;
      open = false;
      await syncs;
      await handle.close();
    };
    return {
      // Each write has its place, so writes may overlap. Every eighth of a chunk, the file is
      // fsynced in the background: the disk writes the file back while the rest arrives, and the
      // fsync that installs it has little left to do.
      write: async (bytes) => {
        const at = written;
        written += bytes.length;
        unsynced += bytes.length;
        await writeFully(handle, bytes, 0, bytes.length, at, path);
        if (unsynced >= this.log.chunkSize * SYNC_BEHIND_SHARE) {
          unsynced = 0;
          syncs = syncs.then(() => handle.sync()).catch((error: unknown) => {
            syncFailure ??= error as Error;
          });
        }
      },
      install: async () => {
        try {
          await syncs;
          if (syncFailure !== undefined) throw syncFailure;
          await handle.sync();
        } catch (error) {
          throw Errors.storageIo.create(path, 'fsync', String(error));
        } finally {
          await close();
        }
        await this.installChunk(path, version);
      },
      discard: async () => {
        await close().catch(() => undefined);
        await fileSystem.unlink(path).catch(() => undefined);
      },
    };
  }

  /** epoch.chk and proposal.chk follow the leader's epochs, so the next handshake can name them. */
  private noteEpoch(position: number, number: number): void {
    this.checkpoints.epoch.write(position);
    if (number > this.checkpoints.proposal.value) this.checkpoints.proposal.write(number);
  }

  /** A failed write leaves the log in a state only a restart sorts out: the engine stops. */
  private async durably<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      // A chunk file refused before anything changed is the leader's mistake, not a broken log.
      if (!Errors.storageReplacementInvalid.is(error)) this.onFatal(error as Error);
      throw error;
    }
  }

  /** Runs `step` after the steps before it; records queued before it are durable by then. */
  private afterRecords<T>(step: () => Promise<T>): Promise<T> {
    return this.serially(async () => {
      await this.appender.drained();
      return step();
    });
  }

  private serially<T>(step: () => Promise<T>): Promise<T> {
    const run = this.queue.then(step, step);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** Checks every frame of `bytes`, which start at log position `position`; returns the last epoch record among them. */
function checkRecords(bytes: Buffer, position: number): { position: number; number: number } | undefined {
  let offset = 0;
  let lastEpoch: { position: number; number: number } | undefined;
  while (offset < bytes.length) {
    const check = checkFrame(bytes, offset, bytes.length);
    if (check.problem) throw Errors.replicationProtocol.create(`the frame at ${position + offset} is not sound (${check.problem})`);
    const recordPosition = readInt64(bytes, offset + FRAME_LOG_POSITION_OFFSET);
    if (recordPosition !== position + offset) {
      throw Errors.replicationProtocol.create(`the record at ${position + offset} says it is at ${recordPosition}`);
    }
    lastEpoch = epochOf(bytes, offset, position + offset) ?? lastEpoch;
    offset += check.framedLength;
  }
  return lastEpoch;
}

function epochOf(buffer: Buffer, offset: number, position: number): { position: number; number: number } | undefined {
  if (peekEventKey(buffer, offset)) return undefined;
  const record = decodeRecord(buffer, offset);
  if (record.kind !== RecordKind.system || record.systemKind !== SystemKind.epoch) return undefined;
  return { position, number: (JSON.parse(record.data.toString('utf8')) as { epochNumber: number }).epochNumber };
}
