/**
 * What `GET /info` reports about this node: its version, its state, which optional parts of the
 * API it serves, and on a cluster member the cluster as it sees it. The composition root says
 * which features are on; the state is read live.
 */

import type { ReplicaStatus } from '../replication/follower.js';
import type { ClusterMemberView, ClusterView } from '../cluster/cluster-view.js';

/** The reference's lower-cased node states this node takes: a cluster member is also `follower`, `preleader` or `unknown` (no leader known). */
export type NodeState =
  | 'initializing' | 'leader' | 'follower' | 'preleader' | 'unknown' | 'readonlyreplica' | 'catchingup' | 'shuttingdown' | 'shutdown';

export interface NodeFeatures {
  readonly projections: boolean;
  readonly userManagement: boolean;
  readonly atomPub: boolean;
}

export interface NodeAuthentication {
  readonly type: string;
  readonly properties: Record<string, unknown> | null;
}

export interface InfoDocument {
  svcVersion: string;
  state: NodeState;
  features: NodeFeatures;
  authentication: NodeAuthentication;
  /** On a read-only replica: its leader, its state towards it and its lag. */
  replication?: ReplicaStatus;
  /** On a member of a cluster: the cluster as this node sees it. */
  cluster?: ClusterInfo;
}

export interface ClusterInfo {
  name: string;
  size: number;
  nodeId: string;
  /** The leader's term; 0 while there is no leader. */
  term: number;
  leader: { id: string; httpUrl: string } | null;
  members: ClusterMemberView[];
}

function clusterInfo(cluster: ClusterView): ClusterInfo {
  const leader = cluster.leader();
  return {
    name: cluster.clusterName, size: cluster.clusterSize, nodeId: cluster.nodeId, term: leader?.term ?? 0,
    leader: leader ? { id: leader.id, httpUrl: leader.httpUrl } : null, members: cluster.members(),
  };
}

export class NodeInfo {
  constructor(
    private readonly version: string,
    private readonly features: NodeFeatures,
    private readonly authentication: NodeAuthentication,
    private readonly state: () => NodeState,
    private readonly replica?: () => ReplicaStatus,
    private readonly cluster?: ClusterView,
  ) {}

  /**
   * A cluster member that runs is in its member state (leader, follower, …); the node's own state
   * says whether it runs at all (starting, stopping), and a node alone that runs leads.
   */
  private currentState(): NodeState {
    const state = this.state();
    const self = state === 'leader' ? this.cluster?.members().find((member) => member.self) : undefined;
    return self ? (self.state.toLowerCase() as NodeState) : state;
  }

  document(): InfoDocument {
    return {
      svcVersion: this.version,
      state: this.currentState(),
      features: this.features,
      authentication: this.authentication,
      ...(this.replica ? { replication: this.replica() } : {}),
      ...(this.cluster ? { cluster: clusterInfo(this.cluster) } : {}),
    };
  }
}
