/**
 * The node's figures in the Prometheus text format: the curated series of metric-table.ts, the
 * HTTP request duration histogram per route group, and prom-client's process_* and nodejs_*
 * defaults, all in the node's own registry (two nodes in one process keep their figures apart).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { SERIES, type MetricInputs, type ProjectionReading, type SeriesDefinition } from './metric-table.js';
import type { Stats } from './stats.js';

export interface MetricsSources {
  stats: () => Promise<Stats>;
  /** The projections' figures; absent when the node runs none. */
  projections?: () => readonly ProjectionReading[];
  /** The node's version, for svcdb_build_info. */
  version: string;
}

/** The groups request durations are kept by: a bounded set, whatever URLs clients send. */
export type RouteGroup = 'streams_read' | 'streams_write' | 'subscriptions' | 'projections' | 'admin' | 'users' | 'other';

/**
 * Upper bounds in seconds: appends take milliseconds (an fsync), reads less, and long polls and
 * subscription reads wait up to their timeout, so the buckets run from 1 ms to a minute.
 */
const REQUEST_DURATION_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class MetricsService {
  private readonly registry = new Registry();
  private readonly series: ReadonlyArray<{ definition: SeriesDefinition; metric: Counter | Gauge }>;
  private readonly requestDurations: Histogram<'route' | 'status_class'>;

  constructor(private readonly sources: MetricsSources) {
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.series = SERIES.map((definition) => {
      const settings = { name: definition.name, help: definition.help, labelNames: [...(definition.labels ?? [])], registers };
      return { definition, metric: definition.type === 'counter' ? new Counter(settings) : new Gauge(settings) };
    });
    this.requestDurations = new Histogram({
      name: 'svcdb_http_request_duration_seconds',
      help: 'Time from a request\'s arrival to the end of its response, by route group (streams_read, streams_write, subscriptions, projections, admin, users, other) and status class (2xx, 4xx…).',
      labelNames: ['route', 'status_class'], buckets: REQUEST_DURATION_BUCKETS_SECONDS, registers,
    });
    new Gauge({
      name: 'svcdb_build_info', help: 'The node\'s version, in the version label; the value is always 1.', labelNames: ['version'], registers,
    }).set({ version: sources.version }, 1);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Called once per answered request (request-durations.ts). */
  observeRequest(route: RouteGroup, statusCode: number, seconds: number): void {
    this.requestDurations.observe({ route, status_class: `${Math.floor(statusCode / 100)}xx` }, seconds);
  }

  async render(): Promise<string> {
    const inputs: MetricInputs = { stats: await this.sources.stats(), projections: this.sources.projections?.() ?? [] };
    for (const { definition, metric } of this.series) {
      const value = definition.read(inputs);
      // Cleared on every scrape, so that a queue, group or projection that is gone leaves no series behind.
      metric.reset();
      if (value === undefined) continue;
      const samples = typeof value === 'number' ? [[{}, value] as const] : value;
      // A counter cannot be set; clearing it and adding the total gives the same exposition.
      for (const [labels, sample] of samples) {
        if (metric instanceof Counter) metric.inc(labels, sample);
        else metric.set(labels, sample);
      }
    }
    return this.registry.metrics();
  }
}
