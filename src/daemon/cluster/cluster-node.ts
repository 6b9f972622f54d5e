/**
 * A node's part in the cluster, put together: one etcd connection, its registration
 * (Membership), the election, and the state log. The daemon makes one from the cluster options
 * and tells it when its durable position moved.
 */
import type { Logger } from '../../common/logger.js';
import { ETCD_KEY_PREFIX, type ClusterOptions } from './cluster-options.js';
import { Election } from './election.js';
import { clusterKeys, connectEtcd } from './etcd-connection.js';
import type { Etcd3 } from 'etcd3';
import { Membership } from './membership.js';
import type { ClusterView } from './cluster-view.js';
import { nodeView } from './node-view.js';
import { ClusterStateLog } from './state-log.js';

export interface ClusterNodeOptions {
  cluster: ClusterOptions;
  /** Stable across restarts of the node: its record in etcd is named by it. */
  id: string;
  logger: Logger;
  position: () => { writerCheckpoint: number; epoch: number };
  /** What the node says of itself in its record; by default Leader, Follower or Unknown from the election. */
  state?: () => string;
}

export class ClusterNode {
  readonly membership: Membership;
  readonly election: Election;
  private readonly client: Etcd3;
  private readonly options: ClusterNodeOptions;

  constructor(options: ClusterNodeOptions) {
    this.options = options;
    const { cluster, id } = options;
    this.client = connectEtcd(cluster.etcdEndpoints, cluster.requestTimeoutMs);
    const keys = clusterKeys(ETCD_KEY_PREFIX, cluster.clusterName);
    const timing = { ttlMs: cluster.leaderLeaseTtlMs, driftMarginMs: cluster.driftMarginMs, requestTimeoutMs: cluster.requestTimeoutMs };
    this.membership = new Membership({
      client: this.client, keys, id, httpUrl: cluster.advertiseHttpUrl, priority: cluster.nodePriority,
      publishIntervalMs: cluster.publishIntervalMs, position: options.position, state: options.state ?? (() => this.state()), ...timing,
    });
    this.election = new Election({
      client: this.client, keys, membership: this.membership, id, httpUrl: cluster.advertiseHttpUrl, clusterSize: cluster.clusterSize, ...timing,
    });
    new ClusterStateLog(options.logger.child({ component: 'cluster' })).attach(this.membership, this.election);
    // What a member says of itself changes with its role; others read it in its record.
    this.election.on('leader', () => this.membership.positionChanged());
    this.election.on('follower', () => this.membership.positionChanged());
  }

  /** Registers the node and joins the election; resolves once both are in place. */
  async start(): Promise<void> {
    await this.membership.start();
    await this.election.start();
  }

  /** Leader, Follower or Unknown (no leader known), as the member record and /gossip say. */
  state(): string {
    if (this.election.isLeader) return 'Leader';
    return this.election.leader ? 'Follower' : 'Unknown';
  }

  /** What the node's HTTP surface shows of the cluster (/gossip, /info) and its resign operation. */
  view(): ClusterView {
    const { cluster, id } = this.options;
    return nodeView({ id, clusterName: cluster.clusterName, clusterSize: cluster.clusterSize, membership: this.membership, election: this.election });
  }

  async close(): Promise<void> {
    try {
      await this.election.close();
      await this.membership.close();
    } finally {
      // An open client keeps reconnecting, and the process alive.
      this.client.close();
    }
  }
}
