/**
 * The node's figures in the Prometheus text format: the curated series of metric-table.ts, the
 * HTTP request duration histogram per route group, and prom-client's process_* and nodejs_*
 * defaults, all in the node's own registry (two nodes in one process keep their figures apart).
 */
import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import { RequestDurationsHistogram, type RouteGroup } from './request-durations-histogram.js';
import { SERIES, type MetricInputs, type ProjectionReading, type SeriesDefinition } from './metric-table.js';
import type { Stats } from './stats.js';

export interface MetricsSources {
  stats: () => Promise<Stats>;
  /** The projections' figures; absent when the node runs none. */
  projections?: () => readonly ProjectionReading[];
  /** The node's version, for svcdb_build_info. */
  version: string;
}

export type { RouteGroup };

export class MetricsService {
  private readonly registry = new Registry();
  private readonly series: ReadonlyArray<{ definition: SeriesDefinition; metric: Counter | Gauge }>;
  private readonly requestDurations = new RequestDurationsHistogram();

  constructor(private readonly sources: MetricsSources) {
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.series = SERIES.map((definition) => {
      const settings = { name: definition.name, help: definition.help, labelNames: [...(definition.labels ?? [])], registers };
      return { definition, metric: definition.type === 'counter' ? new Counter(settings) : new Gauge(settings) };
    });
    // Not a prom-client metric (see request-durations-histogram.ts), but printed by the registry as one.
    this.registry.registerMetric(this.requestDurations as unknown as Metric);
    new Gauge({
      name: 'svcdb_build_info', help: 'The node\'s version, in the version label; the value is always 1.', labelNames: ['version'], registers,
    }).set({ version: sources.version }, 1);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Called once per answered request (request-durations.ts). */
  observeRequest(route: RouteGroup, statusCode: number, seconds: number): void {
    this.requestDurations.observe(route, statusCode, seconds);
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
