/**
 * The node's recent statistics, one sample a second for the last ten minutes, kept in a ring
 * buffer and served at `GET /stats/history`. A console that opens a page, or comes back to one,
 * draws the minutes before it looked instead of starting from an empty chart.
 *
 * Counters become rates between two samples. Requests to the statistics routes themselves
 * (`/stats`, `/stats/{path}`, `/stats/history`) are counted apart as `monitoringRequestsPerSecond`
 * and left out of `requestsPerSecond`, so a node watched by a console and doing nothing else shows
 * no load of its own.
 */
import type { StatsSample } from '../../common/stats-history-document.js';
import type { Stats } from './stats.js';


export const STATS_HISTORY_PERIOD_MS = 1000;
export const STATS_HISTORY_SAMPLES_MAX = 600;

interface Counters {
  atMs: number;
  appends: number;
  reads: number;
  requests: number;
  monitoring: number;
  received: number;
  sent: number;
}

export interface StatsHistorySources {
  collect: () => Promise<Stats>;
  /** Requests to the monitoring routes answered since start. */
  monitoringRequests: () => number;
  nowMs?: () => number;
}

function countersOf(stats: Stats, monitoring: number, atMs: number): Counters {
  const { queue, readIndex } = stats.svc;
  return {
    atMs,
    appends: queue.StorageWriter?.totalItemsProcessed ?? 0,
    reads: readIndex.cachedRecord + readIndex.notCachedRecord,
    requests: queue.HttpRequests?.totalItemsProcessed ?? 0,
    monitoring,
    received: stats.proc.tcp.receivedBytesTotal,
    sent: stats.proc.tcp.sentBytesTotal,
  };
}

function rate(now: number, before: number, seconds: number): number {
  // A counter that went down was reset: no rate for that interval.
  return seconds > 0 && now >= before ? Math.round(((now - before) / seconds) * 100) / 100 : 0;
}

export class StatsHistory {
  private readonly samples: StatsSample[] = [];
  private previous: Counters | undefined;
  private sequence = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(private readonly sources: StatsHistorySources) {}

  /** Samples now and then every period until stopped; the timer never keeps the process alive. */
  start(): void {
    this.stopped = false;
    const tick = () => {
      this.sample().catch(() => undefined).finally(() => {
        if (!this.stopped) this.timer = setTimeout(tick, STATS_HISTORY_PERIOD_MS).unref();
      });
    };
    tick();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** The samples newer than `after` (all of them without it), oldest first. */
  since(after = -1): StatsSample[] {
    const first = this.samples.findIndex((sample) => sample.sequence > after);
    return first === -1 ? [] : this.samples.slice(first);
  }

  async sample(): Promise<StatsSample> {
    const stats = await this.sources.collect();
    const atMs = this.sources.nowMs?.() ?? Date.now();
    // Read after collect: the request that fetched nothing is not counted in this interval.
    const now = countersOf(stats, this.sources.monitoringRequests(), atMs);
    const before = this.previous ?? now;
    const seconds = (now.atMs - before.atMs) / 1000;
    this.previous = now;
    const drive = Object.values(stats.sys.drive)[0];
    const monitoringPerSecond = rate(now.monitoring, before.monitoring, seconds);
    const sample: StatsSample = {
      sequence: this.sequence++,
      time: new Date(atMs).toISOString(),
      appendsPerSecond: rate(now.appends, before.appends, seconds),
      readsPerSecond: rate(now.reads, before.reads, seconds),
      requestsPerSecond: Math.max(0, rate(now.requests, before.requests, seconds) - monitoringPerSecond),
      monitoringRequestsPerSecond: monitoringPerSecond,
      queueLength: Object.values(stats.svc.queue).reduce((sum, queue) => sum + queue.length, 0),
      queueLengths: Object.fromEntries(Object.entries(stats.svc.queue).map(([name, queue]) => [name, queue.length])),
      flushMs: stats.svc.writer.lastFlushDelayMs,
      cpuPercent: stats.proc.cpu,
      memoryBytes: stats.proc.mem,
      connections: stats.proc.tcp.connections,
      receivedBytesPerSecond: rate(now.received, before.received, seconds),
      sentBytesPerSecond: rate(now.sent, before.sent, seconds),
      diskUsedPercent: drive?.usage ?? 0,
      diskFreeBytes: drive?.availableBytes ?? 0,
    };
    this.samples.push(sample);
    if (this.samples.length > STATS_HISTORY_SAMPLES_MAX) this.samples.shift();
    return sample;
  }
}
