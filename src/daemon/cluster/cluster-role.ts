/**
 * The role a cluster member's node is composed for (cluster-supervisor.ts recomposes it when the
 * role changes): the leader, which writes its term's epoch and acknowledges through the quorum;
 * a follower, which is a replica of the leader; or a node that knows no leader, which serves its
 * log read-only and refuses writes until one is elected.
 */
export type ClusterRole =
  | { kind: 'leader'; nodeId: string; term: number; onPosition: (nodeId: string, writerCheckpoint: number) => void }
  | { kind: 'follower'; nodeId: string; leaderUrl: string }
  | { kind: 'leaderless'; nodeId: string };

/** Seconds a client is told to wait (Retry-After) while the cluster elects a leader. */
export const ELECTION_RETRY_AFTER_SECONDS = 1;
