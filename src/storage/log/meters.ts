/**
 * Meters the engine's parts keep for operators (/stats, /metrics): plain counters updated where
 * the work happens. Hot paths only add to numbers: nothing here allocates per event, and clocks
 * are read once per request or group commit, never per event. A leaf: the log, the stream
 * lookups and the node's HTTP queues all count with these, and engine-stats.ts assembles them.
 */
import { performance } from 'node:perf_hooks';

/** A queue's counters at one instant; rates come from the difference of two snapshots. */
export interface QueueSnapshot {
  name: string;
  group: string;
  /** Items waiting, not yet taken for processing. */
  length: number;
  lengthLifetimePeak: number;
  /** Highest length seen in the last 100 ms window (or the one before, while the current one is young). */
  lengthCurrentTryPeak: number;
  /** Items whose processing finished since the meter was created. */
  itemsProcessed: number;
  /** Units of work (a group commit, a request) finished, and the time they took in total. */
  workDone: number;
  workMsTotal: number;
  /** Time with at least one unit of work in progress. */
  busyMsTotal: number;
  /** How long the current unit of work has run, or how long the queue has been idle. */
  currentWorkMs: number;
  currentIdleMs: number;
  inProgress: string;
  lastProcessed: string;
  /** Milliseconds on the meter's clock (monotonic), for rates. */
  atMs: number;
}

const PEAK_WINDOW_MS = 100;

/**
 * Counts one queue: items that wait (`enqueued`/`taken`), and the work that processes them
 * (`begin`/`end`), which may run concurrently (HTTP requests) or one at a time (group commits).
 */
export class QueueMeter {
  private length = 0;
  private lifetimePeak = 0;
  private windowPeak = 0;
  private previousWindowPeak = 0;
  private windowStartMs: number;
  private itemsProcessed = 0;
  private workDone = 0;
  private workMsTotal = 0;
  private busyMsTotal = 0;
  private active = 0;
  private busySinceMs = 0;
  private idleSinceMs: number;
  private inProgress = '';
  private lastProcessed = '';

  constructor(readonly name: string, readonly group: string, private readonly now: () => number = performance.now.bind(performance)) {
    this.windowStartMs = now();
    this.idleSinceMs = this.windowStartMs;
  }

  enqueued(count = 1): void {
    this.length += count;
    if (this.length > this.windowPeak) this.windowPeak = this.length;
    if (this.length > this.lifetimePeak) this.lifetimePeak = this.length;
  }

  taken(count: number): void {
    this.length -= count;
  }

  /** Starts a unit of work; returns its start time for `end`. */
  begin(kind: string): number {
    const now = this.now();
    this.rotateWindow(now);
    if (this.active === 0) this.busySinceMs = now;
    this.active++;
    this.inProgress = kind;
    return now;
  }

  end(startMs: number, items: number): void {
    const now = this.now();
    this.itemsProcessed += items;
    this.workDone++;
    this.workMsTotal += now - startMs;
    this.active--;
    this.lastProcessed = this.inProgress;
    if (this.active === 0) {
      this.busyMsTotal += now - this.busySinceMs;
      this.idleSinceMs = now;
      this.inProgress = '';
    }
  }

  private rotateWindow(now: number): void {
    if (now - this.windowStartMs < PEAK_WINDOW_MS) return;
    this.previousWindowPeak = now - this.windowStartMs < 2 * PEAK_WINDOW_MS ? this.windowPeak : this.length;
    this.windowPeak = this.length;
    this.windowStartMs = now;
  }

  snapshot(): QueueSnapshot {
    const now = this.now();
    this.rotateWindow(now);
    const busy = this.active > 0;
    return {
      name: this.name,
      group: this.group,
      length: this.length,
      lengthLifetimePeak: this.lifetimePeak,
      lengthCurrentTryPeak: Math.max(this.windowPeak, this.previousWindowPeak, this.length),
      itemsProcessed: this.itemsProcessed,
      workDone: this.workDone,
      workMsTotal: this.workMsTotal,
      busyMsTotal: this.busyMsTotal + (busy ? now - this.busySinceMs : 0),
      currentWorkMs: busy ? now - this.busySinceMs : 0,
      currentIdleMs: busy ? 0 : now - this.idleSinceMs,
      inProgress: this.inProgress,
      lastProcessed: this.lastProcessed,
      atMs: now,
    };
  }
}

/** The writer's flushes: one flush is one write of a segment and its fsync (and writer.chk's at a chunk switch). */
export class FlushMeter {
  flushes = 0;
  bytesTotal = 0;
  lastBytes = 0;
  maxBytes = 0;
  msTotal = 0;
  lastMs = 0;
  maxMs = 0;
  /** Group commits whose writes were refused because the disk was full or descriptors ran out. */
  refusedCount = 0;

  refused(): void {
    this.refusedCount++;
  }

  record(bytes: number, ms: number): void {
    this.flushes++;
    this.bytesTotal += bytes;
    this.lastBytes = bytes;
    if (bytes > this.maxBytes) this.maxBytes = bytes;
    this.msTotal += ms;
    this.lastMs = ms;
    if (ms > this.maxMs) this.maxMs = ms;
  }
}

/** Read-side counters: where records and stream facts were found. */
export class ReadCounters {
  /** Records read from a chunk's memory (the ongoing chunk, cached completed chunks). */
  recordsFromMemory = 0;
  /** Records read from a chunk file. */
  recordsFromFile = 0;
  streamInfoCacheHits = 0;
  streamInfoCacheMisses = 0;
  /** Index entries whose record turned out to belong to another stream with the same hash. */
  hashCollisions = 0;
}
