/**
 * What `GET /info` reports about this node: its version, its state, and which optional parts of
 * the API it serves. The composition root says which features are on; the state is read live.
 */

import type { ReplicaStatus } from '../replication/follower.js';

/** Lower-case node states, as clients of the info document expect them. */
/** The reference's lower-cased node states this node takes: a cluster member is also `follower` or `unknown` (no leader known). */
export type NodeState = 'initializing' | 'leader' | 'follower' | 'unknown' | 'readonlyreplica' | 'catchingup' | 'shuttingdown' | 'shutdown';

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
}

export class NodeInfo {
  constructor(
    private readonly version: string,
    private readonly features: NodeFeatures,
    private readonly authentication: NodeAuthentication,
    private readonly state: () => NodeState,
    private readonly replica?: () => ReplicaStatus,
  ) {}

  document(): InfoDocument {
    return {
      svcVersion: this.version,
      state: this.state(),
      features: this.features,
      authentication: this.authentication,
      ...(this.replica ? { replication: this.replica() } : {}),
    };
  }
}
