/**
 * The HTTP request duration histogram, kept as plain bucket counts per route group and status
 * class. prom-client's Histogram hashes its label object on every observation, which cost each
 * request several microseconds of the node's one event loop (a read costs about 35); here an
 * observation is an array lookup and a short bucket scan, and the exposition is built only when
 * /metrics is scraped. It is registered in the node's prom-client registry like any metric.
 */
/** The groups request durations are kept by: a bounded set, whatever URLs clients send. */
export type RouteGroup = 'streams_read' | 'streams_write' | 'subscriptions' | 'projections' | 'admin' | 'users' | 'other';

/**
 * Upper bounds in seconds: appends take milliseconds (an fsync), reads less, and long polls and
 * subscription reads wait up to their timeout, so the buckets run from 1 ms to a minute.
 */
export const REQUEST_DURATION_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const NAME = 'svcdb_http_request_duration_seconds';
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

interface Cell {
  /** Observations per bucket (not cumulative), the last for those above every bound. */
  counts: number[];
  sum: number;
}

interface Sample {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

export class RequestDurationsHistogram {
  readonly name = NAME;
  readonly help = 'Time from a request\'s arrival to the end of its response, by route group (streams_read, streams_write, subscriptions, projections, admin, users, other) and status class (2xx, 4xx…).';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly cells = new Map<RouteGroup, Array<Cell | undefined>>();

  observe(route: RouteGroup, statusCode: number, seconds: number): void {
    let byClass = this.cells.get(route);
    if (byClass === undefined) {
      byClass = [];
      this.cells.set(route, byClass);
    }
    const classIndex = Math.min(STATUS_CLASSES.length - 1, Math.max(0, Math.floor(statusCode / 100) - 1));
    const cell = byClass[classIndex] ?? (byClass[classIndex] = { counts: new Array<number>(REQUEST_DURATION_BUCKETS_SECONDS.length + 1).fill(0), sum: 0 });
    let bucket = 0;
    while (bucket < REQUEST_DURATION_BUCKETS_SECONDS.length && seconds > REQUEST_DURATION_BUCKETS_SECONDS[bucket]) bucket += 1;
    cell.counts[bucket] += 1;
    cell.sum += seconds;
  }

  /** The exposition prom-client's registry prints: cumulative buckets, +Inf, sum and count. */
  get(): { name: string; help: string; type: string; aggregator: string; values: Sample[] } {
    const values: Sample[] = [];
    for (const [route, byClass] of this.cells) {
      byClass.forEach((cell, classIndex) => {
        if (cell === undefined) return;
        const labels = { route, status_class: STATUS_CLASSES[classIndex] };
        let cumulative = 0;
        REQUEST_DURATION_BUCKETS_SECONDS.forEach((bound, bucket) => {
          cumulative += cell.counts[bucket];
          values.push({ metricName: `${NAME}_bucket`, labels: { ...labels, le: bound }, value: cumulative });
        });
        const count = cumulative + cell.counts[REQUEST_DURATION_BUCKETS_SECONDS.length];
        values.push({ metricName: `${NAME}_bucket`, labels: { ...labels, le: '+Inf' }, value: count });
        values.push({ metricName: `${NAME}_sum`, labels, value: cell.sum });
        values.push({ metricName: `${NAME}_count`, labels, value: count });
      });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
