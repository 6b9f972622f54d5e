/**
 * The dashboard's figures over the last minutes, from one `/stats` document a second: counters
 * become rates (per second, from the time between two samples), gauges are kept as they are.
 */
export const SAMPLES_MAX = 300;

export interface Sample {
  timeMs: number;
  stats: unknown;
}

export interface Figures {
  appendsPerSecond: number;
  readsPerSecond: number;
  requestsPerSecond: number;
  queueLength: number;
  flushMs: number;
  diskUsedPercent: number;
  diskFreeBytes: number;
}

export type FigureName = keyof Figures;

function at(stats: unknown, ...path: string[]): number {
  let value: unknown = stats;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function queues(stats: unknown): Array<Record<string, unknown>> {
  const value = (stats as { svc?: { queue?: Record<string, unknown> } } | undefined)?.svc?.queue;
  return value && typeof value === 'object' ? Object.values(value).filter((queue): queue is Record<string, unknown> => typeof queue === 'object' && queue !== null) : [];
}

/** The drive the database is on: the first the node reports. */
function drive(stats: unknown): unknown {
  const drives = (stats as { sys?: { drive?: Record<string, unknown> } } | undefined)?.sys?.drive;
  return drives ? Object.values(drives)[0] : undefined;
}

function counters(stats: unknown) {
  return {
    appends: at(stats, 'svc', 'queue', 'StorageWriter', 'totalItemsProcessed'),
    reads: at(stats, 'svc', 'readIndex', 'cachedRecord') + at(stats, 'svc', 'readIndex', 'notCachedRecord'),
    requests: at(stats, 'svc', 'queue', 'HttpRequests', 'totalItemsProcessed'),
  };
}

function rate(now: number, before: number, seconds: number): number {
  // A counter that went down was reset (the node restarted): no rate for that interval.
  return seconds > 0 && now >= before ? (now - before) / seconds : 0;
}

/** The figures at `current`, with rates over the time since `previous`. */
export function figuresOf(previous: Sample | undefined, current: Sample): Figures {
  const now = counters(current.stats);
  const before = previous ? counters(previous.stats) : now;
  const seconds = previous ? (current.timeMs - previous.timeMs) / 1000 : 0;
  return {
    appendsPerSecond: rate(now.appends, before.appends, seconds),
    readsPerSecond: rate(now.reads, before.reads, seconds),
    requestsPerSecond: rate(now.requests, before.requests, seconds),
    queueLength: queues(current.stats).reduce((sum, queue) => sum + (typeof queue.length === 'number' ? queue.length : 0), 0),
    flushMs: at(current.stats, 'svc', 'writer', 'lastFlushDelayMs'),
    diskUsedPercent: at(drive(current.stats), 'usage'),
    diskFreeBytes: at(drive(current.stats), 'availableBytes'),
  };
}

/** A bounded history: the newest SAMPLES_MAX figures, oldest first. */
export class Series {
  private samples: Sample[] = [];
  private figures: Figures[] = [];

  add(sample: Sample): Figures {
    const figures = figuresOf(this.samples.at(-1), sample);
    this.samples.push(sample);
    this.figures.push(figures);
    if (this.samples.length > SAMPLES_MAX) {
      this.samples.shift();
      this.figures.shift();
    }
    return figures;
  }

  values(name: FigureName): number[] {
    return this.figures.map((figures) => figures[name]);
  }

  get length(): number {
    return this.figures.length;
  }
}

// One way to write bytes and durations for the console and the CLI alike.
export { formatBytes, formatDuration } from '../../src/common/human-units.js';
