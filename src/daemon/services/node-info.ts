/**
 * What `GET /info` reports about this node: its version, its state, and which optional parts of
 * the API it serves. The composition root says which features are on; the state is read live.
 */

/** Lower-case node states, as clients of the info document expect them. */
export type NodeState = 'initializing' | 'leader' | 'shuttingdown' | 'shutdown';

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
}

export class NodeInfo {
  constructor(
    private readonly version: string,
    private readonly features: NodeFeatures,
    private readonly authentication: NodeAuthentication,
    private readonly state: () => NodeState,
  ) {}

  document(): InfoDocument {
    return {
      svcVersion: this.version,
      state: this.state(),
      features: this.features,
      authentication: this.authentication,
    };
  }
}
