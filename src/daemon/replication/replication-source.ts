/**
 * The leader's side of replication, on every node: the handshake that finds where a replica's
 * log and this one part, and the stream of this node's log from there (LogShipper), woken by the
 * engine's log consumers after each commit.
 */
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
  remote: string;
  /** Where the stream has reached: what was sent, not what the replica made durable. */
  sentPosition: number;
  connectedAt: string;
}

export class ReplicationSource {
  private readonly streams = new Set<FollowingReplica>();
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
  async stream(from: number, sink: FrameSink & { onClose(listener: () => void): void }, remote: string): Promise<void> {
    const bytes = this.storage.logBytes();
    let wake: (() => void) | undefined;
    sink.onClose(() => wake?.());
    const consumer = this.storage.follow({
      name: `replication to ${remote}`,
      // Nothing is read: the consumer only says that a commit happened.
      readPage: () => ({ events: [], nextPosition: bytes.durableEnd, isEnd: true }),
      handle: () => wake?.(),
    });
    const replica: FollowingReplica = { remote, sentPosition: from, connectedAt: new Date(this.clock()).toISOString() };
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
        },
      }).run(from);
    } finally {
      this.storage.unfollow(consumer);
      this.streams.delete(replica);
      this.logger.info({ replica: remote, position: replica.sentPosition }, 'a replica stopped following this node');
    }
  }

  replicas(): FollowingReplica[] {
    return [...this.streams].map((replica) => ({ ...replica }));
  }

  get sentBytes(): number {
    return this.bytesSent;
  }
}
