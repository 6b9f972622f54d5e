/**
 * How far a replica is behind its leader. In bytes: the leader's durable end, as it last said,
 * less the replica's. In time: how long ago the leader had durable what the replica still lacks,
 * taken from when each heartbeat arrived (the two clocks are never compared).
 */

/** Heartbeats remembered at most; older ones are dropped (lag only grows past them). */
const MARKS_MAX = 256;

export class LagTracker {
  private leaderEnd = -1;
  /** Leader ends not reached yet, oldest first, with when they were heard of. */
  private readonly marks: Array<{ end: number; atMs: number }> = [];

  constructor(private readonly clock: () => number) {}

  /** The leader said its durable end is `end`. */
  heard(end: number): void {
    if (end <= this.leaderEnd) return;
    this.leaderEnd = end;
    this.marks.push({ end, atMs: this.clock() });
    if (this.marks.length > MARKS_MAX) this.marks.splice(1, 1);
  }

  /** The lag of a replica whose own durable end is `replicaEnd`. */
  lag(replicaEnd: number): { leaderEnd: number; bytes: number; ms: number } {
    while (this.marks.length > 0 && this.marks[0].end <= replicaEnd) this.marks.shift();
    const oldest = this.marks[0];
    return {
      leaderEnd: this.leaderEnd,
      bytes: Math.max(0, this.leaderEnd - replicaEnd),
      ms: oldest === undefined ? 0 : this.clock() - oldest.atMs,
    };
  }
}
