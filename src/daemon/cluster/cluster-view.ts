/**
 * What the HTTP surface of a cluster node sees of the cluster: the members etcd lists, who leads
 * in which term, and the resign operation. The cluster supervisor provides it; a node outside a
 * cluster has none.
 */

/** The reference's member states, as /gossip shows them. */
export type ClusterMemberState = 'Leader' | 'Follower' | 'CatchingUp' | 'PreLeader' | 'Unknown';

export interface ClusterMemberView {
  id: string;
  httpUrl: string;
  state: ClusterMemberState;
  /** The member's durable end of log, as it last published it. */
  writerCheckpoint: number;
  /** The number of the newest epoch in its log. */
  epoch: number;
  priority: number;
  /** True for the member that answers. */
  self: boolean;
}

export interface ClusterView {
  /** This node's id, stable across restarts (the node-id file in the db directory). */
  readonly nodeId: string;
  readonly clusterName: string;
  readonly clusterSize: number;
  /** The leader etcd names now, and its term; undefined while there is none. */
  leader(): { id: string; httpUrl: string; term: number } | undefined;
  /** Every registered member, this node included, ordered by id. */
  members(): ClusterMemberView[];
  /** Gives up leadership on purpose (a follower: nothing happens); resolves once the key is gone. */
  resign(): Promise<void>;
}
