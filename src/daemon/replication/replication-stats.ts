/**
 * Replication's share of /stats (`svc.replication`) and so of /metrics: on every node what it
 * sends to the replicas that follow it; on a replica, its leader, its state and lag, what it
 * received and how often it reconnected. Numbers become metrics; the URL and states are for people.
 */
import type { ReplicaStatus } from './follower.js';
import type { ReplicationSource } from './replication-source.js';

export interface ReplicationFields {
  /** Replicas that follow this node now. */
  replicasFollowing: number;
  /** Bytes of frames sent to replicas since the node started. */
  sentBytes: number;
  /** On a read-only replica only. */
  replica?: {
    leaderUrl: string;
    state: string;
    connection: string;
    lagBytes: number;
    lagSeconds: number;
    receivedBytes: number;
    reconnects: number;
  };
}

export function replicationStats(source: ReplicationSource, replica: ReplicaStatus | undefined): ReplicationFields {
  return {
    replicasFollowing: source.replicas().length,
    sentBytes: source.sentBytes,
    ...(replica ? {
      replica: {
        leaderUrl: replica.leaderUrl, state: replica.state, connection: replica.connection, lagBytes: replica.lagBytes,
        lagSeconds: replica.lagSeconds, receivedBytes: replica.bytesReceived, reconnects: replica.reconnects,
      },
    } : {}),
  };
}
