/**
 * The leader's side of replication, on every node: the handshake that finds where a replica's
 * log and this one part, and the stream of this node's log from there (LogShipper), woken by the
 * engine's log consumers after each commit.
 */
import { randomUUID } from 'node:crypto';
import { Errors } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { Engine } from '../../storage/engine.js';
import { commonPosition, outsideRewrittenChunk, type HandshakeReply, type HandshakeRequest } from './handshake.js';
import { LogShipper, type FrameSink } from './log-shipper.js';

export type ReplicationStorage = Pick<Engine, 'logBytes' | 'follow' | 'unfollow'>;

/** A heartbeat goes at least this often, so a replica knows the leader's end and a dead stream shows. */
export const HEARTBEAT_MS = 1000;

/** What the leader knows of a replica that follows it now, for /gossip. */
export interface FollowingReplica {
  /** Names this stream in /gossip; a reconnection is a new one. */
  instanceId: string;
  /** The replica's address and port as this node sees its connection. */
  remoteIp: string;
  remotePort: number;
  /** Where the stream has reached: what was sent, not what the replica made durable. */
  sentPosition: number;
  connectedAt: string;
}

/** A following replica with its lag behind this node's durable end, as of now. */
export interface FollowingReplicaView extends FollowingReplica {
  state: 'ReadOnlyReplica' | 'CatchingUp';
  lagBytes: number;
  /** How long ago the stream last held everything this node had durable; 0 while it does. */
  lagSeconds: number;
}

interface Stream extends FollowingReplica {
  /** When the stream last reached this node's durable end. */
  caughtUpAtMs: number;
  /** It has reached the durable end at least once (a CatchingUp replica has not yet). */
  caughtUp: boolean;
}

export class ReplicationSource {
  private readonly streams = new Set<Stream>();
  private bytesSent = 0;

  constructor(private readonly storage: ReplicationStorage, private readonly logger: Logger, private readonly clock: () => number = Date.now) {}

  handshake(request: HandshakeRequest): HandshakeReply {
    const bytes = this.storage.logBytes();
    const epochs = bytes.epochs().map(({ epochPosition, epochNumber, epochId }) => ({ epochPosition, epochNumber, epochId }));
    const leaderEnd = bytes.durableEnd;
    const common = outsideRewrittenChunk(commonPosition(request, epochs, leaderEnd), bytes.chunkSize, (number) => bytes.chunkFacts(number));
    return { commonPosition: common, chunkSizeBytes: bytes.chunkSize, leaderWriterCheckpoint: leaderEnd };
  }

  /** Refuses a position that is not one of this log's boundaries before any byte is sent. */
  checkFrom(from: number): void {
    const bytes = this.storage.logBytes();
    if (from > bytes.durableEnd) throw Errors.replicationProtocol.create(`position ${from} is past the end of the leader's log (${bytes.durableEnd}); handshake first`);
    if (!bytes.isBoundary(from)) throw Errors.replicationProtocol.create(`position ${from} is not a record boundary of the leader's log; handshake first`);
  }

  /** Streams the log from `from` into `sink` until the sink closes. */
  async stream(from: number, sink: FrameSink & { onClose(listener: () => void): void }, remoteIp: string, remotePort: number): Promise<void> {
    const remote = `${remoteIp}:${remotePort}`;
    const bytes = this.storage.logBytes();
    let wake: (() => void) | undefined;
    sink.onClose(() => wake?.());
    const consumer = this.storage.follow({
      name: `replication to ${remote}`,
      // Nothing is read: the consumer only says that a commit happened.
      readPage: () => Promise.resolve({ events: [], nextPosition: bytes.durableEnd, isEnd: true }),
      handle: () => wake?.(),
    });
    const now = this.clock();
    const replica: Stream = {
      instanceId: randomUUID(), remoteIp, remotePort, sentPosition: from, connectedAt: new Date(now).toISOString(),
      caughtUpAtMs: now, caughtUp: from >= bytes.durableEnd,
    };
    this.streams.add(replica);
    this.logger.info({ replica: remote, from }, 'a replica follows this node');
    const nextCommit = (timeoutMs: number) => new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done(): void {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
      if (sink.closed) done();
    });
    try {
      await new LogShipper({
        bytes, sink, nextCommit, clock: this.clock, heartbeatMs: HEARTBEAT_MS,
        sent: (count, position) => {
          this.bytesSent += count;
          replica.sentPosition = position;
          if (position >= bytes.durableEnd) {
            replica.caughtUp = true;
            replica.caughtUpAtMs = this.clock();
          }
        },
      }).run(from);
    } finally {
      this.storage.unfollow(consumer);
      this.streams.delete(replica);
      this.logger.info({ replica: remote, position: replica.sentPosition }, 'a replica stopped following this node');
    }
  }

  replicas(): FollowingReplicaView[] {
    const end = this.storage.logBytes().durableEnd;
    const now = this.clock();
    return [...this.streams].map(({ caughtUpAtMs, caughtUp, ...replica }) => {
      const behind = replica.sentPosition < end;
      return {
        ...replica, state: caughtUp ? 'ReadOnlyReplica' : 'CatchingUp', lagBytes: Math.max(0, end - replica.sentPosition),
        lagSeconds: behind ? Math.max(0, now - caughtUpAtMs) / 1000 : 0,
      };
    });
  }

  get sentBytes(): number {
    return this.bytesSent;
  }
}
