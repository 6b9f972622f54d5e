/**
 * The /stats figures in the Prometheus text format, for the scrapers operators already run. Each
 * numeric field of the statistics tree is one metric, `svcdb_<path in snake case>`; the branches
 * keyed by name (drives, queues) become labels. Running totals are counters (`_total`), the
 * rest gauges. Metrics are registered the first time their field appears.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import type { Stats } from './stats.js';

type Tree = { [key: string]: unknown };

/** Branches whose keys are names (a drive's mount point, a queue's name), not fields. */
const labelledBranches: Record<string, string> = { 'sys.drive': 'drive', 'svc.queue': 'queue', 'svc.consumers': 'consumer', 'svc.subscriptions': 'subscription' };

/** Fields that only grow while the process runs. */
const totals = new Set([
  'proc.diskIo.readBytes', 'proc.diskIo.writtenBytes', 'proc.diskIo.readOps', 'proc.diskIo.writeOps',
  'proc.gc.gen0ItemsCount', 'proc.gc.gen1ItemsCount', 'proc.gc.gen2ItemsCount',
  'proc.tcp.receivedBytesTotal', 'proc.tcp.sentBytesTotal',
  'svc.queue.totalItemsProcessed', 'svc.writer.totalFlushes', 'svc.writer.totalFlushedBytes', 'svc.writer.refusedCommits', 'svc.consumers.pagesHandled',
  'svc.readIndex.cachedRecord', 'svc.readIndex.notCachedRecord', 'svc.readIndex.cachedStreamInfo',
  'svc.readIndex.notCachedStreamInfo', 'svc.readIndex.cachedTransInfo', 'svc.readIndex.notCachedTransInfo',
  'svc.readIndex.hashCollisions',
  'svc.subscriptions.totalItemsProcessed',
  'svc.scavenge.scavengesStarted', 'svc.scavenge.scavengesSucceeded', 'svc.scavenge.scavengesFailed', 'svc.scavenge.scavengesStopped',
  'svc.authentication.verificationsRefused', 'svc.authentication.failedLogins', 'svc.authentication.throttledRequests',
]);

const snake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

interface Reading {
  path: string;
  labels: Record<string, string>;
  value: number;
}

function readings(tree: Tree, path: string[] = [], labels: Record<string, string> = {}, into: Reading[] = []): Reading[] {
  const label = labelledBranches[path.join('.')];
  for (const [key, value] of Object.entries(tree)) {
    if (label !== undefined) {
      // `*` holds the name's place in the path; the name itself becomes the label.
      readings(value as Tree, [...path, '*'], { ...labels, [label]: key }, into);
    } else if (typeof value === 'number') {
      into.push({ path: [...path, key].filter((segment) => segment !== '*').join('.'), labels, value });
    } else if (typeof value === 'object' && value !== null) {
      readings(value as Tree, [...path, key], labels, into);
    }
  }
  return into;
}

export class MetricsService {
  private readonly registry = new Registry();
  private readonly gauges = new Map<string, Gauge>();
  private readonly counters = new Map<string, Counter>();
  private readonly startTime: Gauge;

  constructor(private readonly collect: () => Promise<Stats>) {
    this.startTime = new Gauge({ name: 'svcdb_proc_start_time_seconds', help: 'Start time of the process (proc.startTime), in seconds since the Unix epoch.', registers: [this.registry] });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  async render(): Promise<string> {
    const stats = await this.collect();
    this.startTime.set(Date.parse(stats.proc.startTime) / 1000);
    const byPath = new Map<string, Reading[]>();
    for (const reading of readings(stats as unknown as Tree)) {
      const list = byPath.get(reading.path) ?? [];
      list.push(reading);
      byPath.set(reading.path, list);
    }
    for (const [path, list] of byPath) {
      const labelNames = Object.keys(list[0].labels);
      if (totals.has(path)) {
        // A counter cannot be set; clearing it and adding the total gives the same exposition.
        const counter = this.counter(path, labelNames);
        counter.reset();
        for (const reading of list) counter.inc(reading.labels, reading.value);
      } else {
        const gauge = this.gauge(path, labelNames);
        for (const reading of list) gauge.set(reading.labels, reading.value);
      }
    }
    return this.registry.metrics();
  }

  private metricName(path: string): string {
    return `svcdb_${path.split('.').map(snake).join('_')}`;
  }

  private gauge(path: string, labelNames: string[]): Gauge {
    let gauge = this.gauges.get(path);
    if (!gauge) {
      gauge = new Gauge({ name: this.metricName(path), help: `The /stats field ${path}.`, labelNames, registers: [this.registry] });
      this.gauges.set(path, gauge);
    }
    return gauge;
  }

  private counter(path: string, labelNames: string[]): Counter {
    let counter = this.counters.get(path);
    if (!counter) {
      counter = new Counter({ name: `${this.metricName(path)}_total`.replace(/_total_total$/, '_total'), help: `The /stats field ${path}.`, labelNames, registers: [this.registry] });
      this.counters.set(path, counter);
    }
    return counter;
  }
}
