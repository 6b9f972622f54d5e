/**
 * One term of this node as the cluster's leader: the quorum its writes are acknowledged through
 * (quorum-writes.ts), fed by the durable positions its followers report. Writes made while the
 * node starts (its default users, the projections' first records) are its own, from before any
 * client could ask; from open() on, a write is acknowledged only once a majority has it durable
 * and while this term's lease surely holds.
 */
import type { NodeStorage } from '../node-storage.js';
import type { Election } from './election.js';
import type { Membership } from './membership.js';
import { QuorumTracker } from './quorum-tracker.js';
import { QUORUM_WRITE_TIMEOUT_MS, quorumWrites } from './quorum-writes.js';

export interface LeaderTermOptions {
  election: Election;
  membership: Membership;
  term: number;
  clusterSize: number;
}

export class LeaderTerm {
  private opened = false;
  private closed = false;
  private storage: NodeStorage | undefined;
  private readonly tracker: QuorumTracker;

  constructor(private readonly options: LeaderTermOptions) {
    this.tracker = new QuorumTracker({ clusterSize: options.clusterSize, selfDurable: () => this.storage?.logBytes().durableEnd ?? -1 });
  }

  /** True while this term's lease cannot have lapsed in etcd. */
  mayAcknowledge(): boolean {
    const { election, term } = this.options;
    return !this.closed && election.term === term && election.mayAcknowledge();
  }

  /** The leader's storage with its writes held for the quorum. */
  gate(storage: NodeStorage): NodeStorage {
    this.storage = storage;
    return quorumWrites(storage, {
      tracker: this.tracker, mayAcknowledge: () => this.mayAcknowledge(), timeoutMs: QUORUM_WRITE_TIMEOUT_MS, enforced: () => this.opened,
    });
  }

  /** The node listens: clients' writes wait for the quorum from now on. */
  open(): void {
    this.opened = true;
  }

  /** A follower's durable position; only members registered in etcd count towards the quorum. */
  report(nodeId: string, writerCheckpoint: number): void {
    if (this.options.membership.isMember(nodeId)) this.tracker.report(nodeId, writerCheckpoint);
  }

  /** The term is over: writes still waiting are refused. */
  close(): void {
    this.closed = true;
    this.tracker.close();
  }
}
