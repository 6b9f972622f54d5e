/**
 * A read-only replica's follower: it handshakes with the leader, then writes the leader's log
 * as it arrives through the replica's log appender, which makes each step durable before it
 * counts and indexes it (readers, long polls and consumers of the replica wake as for a local
 * commit). When the leader cannot be reached or the stream breaks, it retries with backoff and
 * logs once per change of state, not once per attempt. A cluster follower (one with a node id)
 * also reports its durable position to the leader after each durable step (PositionReporter).
 */
import { createHash, type Hash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Errors, isSvcError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { CHUNK_HASH_BYTES } from '../../storage/log/chunk-format.js';
import type { IncomingChunkFile, ReplicaAppender } from '../../storage/log/replica-appender.js';
import { FrameReader, FrameType, readInt64, type Frame } from './frames.js';
import type { EpochMark } from './handshake.js';
import type { LeaderClient } from './leader-client.js';
import { LagTracker } from './lag.js';
import { PositionReporter } from './position-reporter.js';
import { WritesInFlight } from './writes-in-flight.js';

/** How a replica stands, in the reference's words: following with all there is, or behind. */
export type ReplicaState = 'CatchingUp' | 'ReadOnlyReplica';
export type LeaderConnection = 'connecting' | 'following' | 'unreachable' | 'stopped';

export interface ReplicaStatus {
  /** The leader's URL, without credentials. */
  leaderUrl: string;
  state: ReplicaState;
  connection: LeaderConnection;
  writerCheckpoint: number;
  /** The leader's durable end, as its last heartbeat said; -1 before one came. */
  leaderWriterCheckpoint: number;
  lagBytes: number;
  lagSeconds: number;
  bytesReceived: number;
  reconnects: number;
  /** Why the last connection failed, while it is unreachable. */
  lastError?: string;
}

export interface FollowerDependencies {
  leader: LeaderClient;
  appender: ReplicaAppender;
  /** The replica's epochs, newest first, for the handshake. */
  epochs(): EpochMark[];
  /** The database's chunk size: it must be the leader's. */
  chunkSizeBytes: number;
  /**
   * The replica's log went past the point it shares with the leader: truncate.chk is to be set
   * to `commonPosition` and the node restarted to cut it (it cannot cut an open log).
   */
  diverged(commonPosition: number): void;
  logger: Logger;
  clock?: () => number;
  /** First wait before a reconnect; it doubles up to reconnectDelayMsMax. */
  reconnectDelayMs?: number;
  reconnectDelayMsMax?: number;
  /** A cluster member's id: with it, the follower reports its durable position to the leader, which counts it for quorum writes. */
  nodeId?: string;
}

const RECONNECT_DELAY_MS = 100;
/** Bytes of records and chunk files not yet written or durable before the replica stops reading from the leader. */
const WRITES_IN_FLIGHT_BYTES_MAX = 16 * 1024 * 1024;
const RECONNECT_DELAY_MS_MAX = 5000;

/** A chunk file on its way, with the hash of what came so far (all but the footer's own hash). */
interface FileTransfer {
  file: IncomingChunkFile;
  fileBytes: number;
  received: number;
  hash: Hash;
}

export class Follower {
  private connection: LeaderConnection = 'connecting';
  private caughtUp = false;
  private bytesReceived = 0;
  private reconnects = 0;
  private lastError: string | undefined;
  private readonly lag: LagTracker;
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  private transfer: FileTransfer | undefined;
  private readonly clock: () => number;
  private readonly reporter: PositionReporter | undefined;

  constructor(private readonly deps: FollowerDependencies) {
    this.clock = deps.clock ?? Date.now;
    this.lag = new LagTracker(this.clock);
    const { nodeId, leader, appender, logger } = deps;
    this.reporter = nodeId === undefined ? undefined : new PositionReporter({
      nodeId, logger, durablePosition: () => appender.position().writerCheckpoint,
      send: (id, position, signal) => leader.reportPosition(id, position, signal),
    });
  }

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
    await this.reporter?.stop();
    this.deps.leader.close();
    await this.dropTransfer();
  }

  /** A chunk file that did not arrive whole is deleted. */
  private async dropTransfer(): Promise<void> {
    const transfer = this.transfer;
    this.transfer = undefined;
    await transfer?.file.discard();
  }

  status(): ReplicaStatus {
    const writerCheckpoint = this.deps.appender.position().writerCheckpoint;
    const lag = this.lag.lag(writerCheckpoint);
    return {
      leaderUrl: this.deps.leader.url.origin, state: this.caughtUp ? 'ReadOnlyReplica' : 'CatchingUp', connection: this.connection,
      writerCheckpoint, leaderWriterCheckpoint: lag.leaderEnd, lagBytes: lag.bytes, lagSeconds: lag.ms / 1000,
      bytesReceived: this.bytesReceived, reconnects: this.reconnects,
      ...(this.connection === 'unreachable' && this.lastError ? { lastError: this.lastError } : {}),
    };
  }

  private async loop(): Promise<void> {
    const signal = this.stopping.signal;
    const first = this.deps.reconnectDelayMs ?? RECONNECT_DELAY_MS;
    let delayMs = first;
    while (!signal.aborted) {
      try {
        const from = await this.handshake(signal);
        if (from === undefined) return;
        this.changeConnection('following');
        delayMs = first;
        this.reporter?.connected();
        await this.follow(from, signal);
        if (!signal.aborted) throw Errors.replicaUnavailable.create(this.deps.leader.url.origin, 'the leader ended the stream');
      } catch (error) {
        if (signal.aborted) break;
        if (isFatal(error)) {
          this.deps.logger.error({ err: error }, 'replication stopped');
          this.changeConnection('stopped');
          return;
        }
        this.lastError = (error as Error).message;
        this.changeConnection('unreachable', error as Error);
      } finally {
        this.reporter?.disconnected();
        this.caughtUp = false;
        await this.dropTransfer();
      }
      this.reconnects++;
      await sleep(delayMs, undefined, { signal }).catch(() => undefined);
      delayMs = Math.min(delayMs * 2, this.deps.reconnectDelayMsMax ?? RECONNECT_DELAY_MS_MAX);
    }
    this.changeConnection('stopped');
  }

  /** The position to follow from, or undefined when the replica must be restarted to cut its log. */
  private async handshake(signal: AbortSignal): Promise<number | undefined> {
    const { writerCheckpoint } = this.deps.appender.position();
    const reply = await this.deps.leader.handshake({ epochs: this.deps.epochs(), writerCheckpoint }, signal);
    if (reply.chunkSizeBytes !== this.deps.chunkSizeBytes) {
      throw Errors.replicationDiverged.create(`the leader's chunk size is ${reply.chunkSizeBytes} bytes, the replica's database has ${this.deps.chunkSizeBytes}`);
    }
    this.lag.heard(reply.leaderWriterCheckpoint);
    if (reply.commonPosition < writerCheckpoint) {
      this.deps.logger.warn({ writerCheckpoint, commonPosition: reply.commonPosition }, 'the replica holds records the leader does not have: restarting to cut them');
      this.changeConnection('stopped');
      this.deps.diverged(reply.commonPosition);
      return undefined;
    }
    return writerCheckpoint;
  }

  private async follow(from: number, signal: AbortSignal): Promise<void> {
    const response = await this.deps.leader.stream(from, signal);
    const reader = new FrameReader();
    const writes = new WritesInFlight(WRITES_IN_FLIGHT_BYTES_MAX);
    try {
      for await (const piece of response) {
        this.bytesReceived += (piece as Buffer).length;
        // Records and chunk file bytes are written while the stream reads on; every other step waits its turn.
        for (const frame of reader.push(piece as Buffer)) {
          await this.apply(frame, writes);
          // Chunk completions and installs are durable once applied; records tell when theirs is.
          this.reporter?.durableMoved();
        }
        await writes.room();
      }
      await writes.settled();
    } finally {
      // The next handshake starts from writer.chk: nothing may still be on its way to it.
      await writes.settled().catch(() => undefined);
    }
  }

  private async apply(frame: Frame, writes: WritesInFlight): Promise<void> {
    const { appender } = this.deps;
    const { payload } = frame;
    switch (frame.type) {
      case FrameType.records:
        return writes.add(this.reported(appender.appendRecords(readInt64(payload, 0), payload.subarray(8))), payload.length);
      case FrameType.heartbeat:
        return this.heartbeat(readInt64(payload, 0), writes);
      case FrameType.chunkFileBegin:
        return this.beginFile(payload.readUInt32LE(0), payload.readUInt32LE(8), readInt64(payload, 12));
      case FrameType.chunkFileData:
        return writes.add(this.fileData(payload), payload.length);
      case FrameType.chunkFileEnd:
        await writes.settled();
        return this.endFile(payload);
      case FrameType.chunkHeader:
        return appender.adoptHeader(payload);
      case FrameType.chunkCompleted:
        return appender.completeChunk(payload.readUInt32LE(0), payload.readUInt32LE(4), payload.subarray(8, 8 + CHUNK_HASH_BYTES));
      default:
        throw Errors.replicationProtocol.create(`frame type ${frame.type} is unknown`);
    }
  }

  /** Records made durable move writer.chk: the reporter hears of it (one report for a group commit's frames). */
  private reported(durable: Promise<void>): Promise<void> {
    return this.reporter === undefined ? durable : durable.then(() => this.reporter?.durableMoved());
  }

  private async beginFile(startNumber: number, version: number, fileBytes: number): Promise<void> {
    if (this.transfer) throw Errors.replicationProtocol.create('a chunk file began before the previous one ended');
    const file = await this.deps.appender.receiveChunkFile(startNumber, version);
    this.transfer = { file, fileBytes, received: 0, hash: createHash('md5') };
  }

  /** Hashes `bytes` now, in order, and writes them; the write may still be under way when the next bytes come. */
  private fileData(bytes: Buffer): Promise<void> {
    const transfer = this.transfer;
    if (!transfer || transfer.received + bytes.length > transfer.fileBytes) {
      return Promise.reject(Errors.replicationProtocol.create('chunk file bytes outside a chunk file'));
    }
    // The footer's own hash is the file's last bytes and is not part of what it hashes.
    const hashedEnd = transfer.fileBytes - CHUNK_HASH_BYTES;
    transfer.hash.update(bytes.subarray(0, Math.max(0, Math.min(bytes.length, hashedEnd - transfer.received))));
    transfer.received += bytes.length;
    return transfer.file.write(bytes);
  }

  private async endFile(leaderHash: Buffer): Promise<void> {
    const transfer = this.transfer;
    if (!transfer || transfer.received !== transfer.fileBytes) throw Errors.replicationProtocol.create('a chunk file ended before all its bytes came');
    this.transfer = undefined;
    if (!transfer.hash.digest().equals(leaderHash)) {
      await transfer.file.discard();
      throw Errors.replicationProtocol.create('a chunk file arrived with bytes that do not match its hash');
    }
    try {
      await transfer.file.install();
    } catch (error) {
      await transfer.file.discard();
      throw error;
    }
  }

  /** The leader's end, for the lag; whether the replica has caught up is known once the records before it are durable. */
  private heartbeat(leaderEnd: number, writes: WritesInFlight): void {
    this.lag.heard(leaderEnd);
    writes.afterAll(() => {
      const caughtUp = this.deps.appender.position().writerCheckpoint >= leaderEnd;
      if (caughtUp && !this.caughtUp) this.deps.logger.info({ position: leaderEnd }, 'caught up with the leader');
      this.caughtUp = caughtUp || this.caughtUp;
    });
  }

  /** Logs a change of the connection's state, once; retries in the same state are silent. */
  private changeConnection(connection: LeaderConnection, error?: Error): void {
    if (connection === this.connection) return;
    this.connection = connection;
    const fields = { leader: this.deps.leader.url.origin, ...(error ? { reason: error.message } : {}) };
    if (connection === 'unreachable') this.deps.logger.warn(fields, 'the leader is unreachable; retrying with backoff and serving what this replica has');
    else this.deps.logger.info(fields, `replication ${connection}`);
  }
}

/** Errors a reconnect cannot cure: this replica's copy is wrong, or its storage stopped. */
function isFatal(error: unknown): boolean {
  return Errors.replicationDiverged.is(error) || Errors.storageClosed.is(error) || Errors.storageIo.is(error)
    || (isSvcError(error) && error.statusCode >= 500 && error.code.startsWith('SVCDB_ERR_STORAGE'));
}
