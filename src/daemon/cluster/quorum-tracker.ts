/**
 * What a cluster leader knows of its followers' logs, from their position reports (POST
 * /replication/position): the highest position a majority of the cluster holds durable, the
 * leader itself counted as one node, and the writes waiting for that position to reach theirs.
 *
 * A follower's latest report is the truth about its disk, even when it is lower than the one
 * before: a follower that restarted may have cut its log back. Reports of followers that went
 * silent still count towards the position (their disk held it when they said so), but not as live:
 * a write is refused at once when too few followers are live to make a majority (quorum-writes.ts).
 */
import { monotonicClock, type Clock } from './monotonic-clock.js';

/** A follower silent for this long is not live: it re-reports every second while it follows. */
export const FOLLOWER_STALE_AFTER_MS = 3000;

export interface QuorumTrackerOptions {
  /** The cluster's size, the leader included (3 or 5; 1 for a cluster of one). */
  clusterSize: number;
  /** The leader's own durable end of log. */
  selfDurable: () => number;
  clock?: Clock;
  staleAfterMs?: number;
}

interface Report {
  position: number;
  atMs: number;
}

interface Waiter {
  position: number;
  settle: (reached: boolean) => void;
}

export class QuorumTracker {
  /** Nodes, the leader included, that must hold a position durable for it to count. */
  readonly majority: number;
  private readonly reports = new Map<string, Report>();
  /** Waiting writes, lowest position first: a report releases a prefix of them. */
  private waiters: Waiter[] = [];
  private closed = false;
  private readonly clock: Clock;
  private readonly staleAfterMs: number;

  constructor(private readonly options: QuorumTrackerOptions) {
    const { clusterSize } = options;
    if (!Number.isSafeInteger(clusterSize) || clusterSize < 1) throw new TypeError(`a cluster of ${clusterSize} nodes`);
    this.majority = Math.floor(clusterSize / 2) + 1;
    this.clock = options.clock ?? monotonicClock;
    this.staleAfterMs = options.staleAfterMs ?? FOLLOWER_STALE_AFTER_MS;
  }

  /** A follower's durable end of log; its latest report replaces the one before, lower or not. */
  report(nodeId: string, position: number): void {
    if (this.closed) return;
    this.reports.set(nodeId, { position, atMs: this.clock() });
    this.release();
  }

  /** A member that left the cluster: its reports count no more. */
  forget(nodeId: string): void {
    this.reports.delete(nodeId);
  }

  /** The highest position a majority of the cluster holds durable; -1 while fewer nodes than a majority reported. */
  quorumPosition(): number {
    const positions = [this.options.selfDurable()];
    for (const { position } of this.reports.values()) positions.push(position);
    if (positions.length < this.majority) return -1;
    positions.sort((a, b) => b - a);
    return positions[this.majority - 1];
  }

  /** Followers that reported within the stale limit. */
  liveFollowers(): number {
    const now = this.clock();
    let live = 0;
    for (const { atMs } of this.reports.values()) if (now - atMs < this.staleAfterMs) live++;
    return live;
  }

  /** True as soon as a majority holds `position` durable; false at the timeout or when the tracker closes. */
  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.quorumPosition() >= position) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        resolve(false);
      }, timeoutMs);
      const waiter: Waiter = {
        position,
        settle: (reached) => {
          clearTimeout(timer);
          resolve(reached);
        },
      };
      this.waiters.splice(insertionIndex(this.waiters, position), 0, waiter);
    });
  }

  /** Releases every waiter (false) and takes no more reports: the node stopped leading. */
  close(): void {
    this.closed = true;
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.settle(false);
  }

  /** Settles the waiters whose position a majority now holds. */
  private release(): void {
    if (this.waiters.length === 0) return;
    const reached = this.quorumPosition();
    let count = 0;
    while (count < this.waiters.length && this.waiters[count].position <= reached) count++;
    if (count === 0) return;
    const released = this.waiters.splice(0, count);
    for (const waiter of released) waiter.settle(true);
  }
}

/** Where `position` goes in `waiters` (sorted by position) to keep them sorted: after its equals. */
function insertionIndex(waiters: readonly Waiter[], position: number): number {
  let low = 0;
  let high = waiters.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (waiters[middle].position <= position) low = middle + 1;
    else high = middle;
  }
  return low;
}
