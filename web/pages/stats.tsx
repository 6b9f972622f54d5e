/**
 * Statistics: every series the node keeps (`/stats/history`), including those the dashboard only
 * sums up (each queue's length, CPU, memory, connections, network), in a chosen time window; and
 * the parts of the node as they are now (`/stats`): its queues, log consumers and subscription
 * groups.
 */
import type { Api } from '../lib/api.js';
import { formatBytes } from '../../src/common/human-units.js';
import type { SeriesName } from '../lib/node-history.js';
import { count, SERIES_LABELS } from '../lib/series-labels.js';
import { Chart, WindowChoice } from '../components/chart.js';
import { every, LiveIndicator, useLive } from '../components/live.js';
import { useNodeHistory } from '../components/node-history.js';
import { ErrorBanner } from '../components/ui.js';

export const STATS_REFRESH_MS = 2000;

/** Every series, the dashboard's first. */
const SERIES: SeriesName[] = [
  'appendsPerSecond', 'readsPerSecond', 'requestsPerSecond', 'monitoringRequestsPerSecond', 'cpuPercent', 'memoryBytes', 'connections',
  'receivedBytesPerSecond', 'sentBytesPerSecond', 'flushMs', 'diskUsedPercent', 'diskFreeBytes',
];

interface QueueRow {
  queueName: string;
  length: number;
  avgItemsPerSecond: number;
  avgProcessingTime: number;
  idleTimePercent: number;
  totalItemsProcessed: number;
}

interface NodeParts {
  svc?: {
    queue?: Record<string, QueueRow>;
    consumers?: Record<string, { state: string; position: number; behindBytes: number; error?: string }>;
    subscriptions?: Record<string, { inFlight: number; parked: number; lag: number; processedRate: number; connections: number }>;
  };
}

function Parts({ parts }: { parts: NodeParts }) {
  const { queue = {}, consumers = {}, subscriptions = {} } = parts.svc ?? {};
  return (
    <>
      <h2>Queues</h2>
      <table data-name="queues">
        <thead><tr><th>Queue</th><th>Length</th><th>Items/s</th><th>Processing (ms)</th><th>Idle</th><th>Processed</th></tr></thead>
        <tbody>
          {Object.entries(queue).map(([name, row]) => (
            <tr key={name}><td>{name}</td><td>{row.length}</td><td>{row.avgItemsPerSecond}</td><td>{row.avgProcessingTime}</td><td>{`${row.idleTimePercent} %`}</td><td>{row.totalItemsProcessed}</td></tr>
          ))}
        </tbody>
      </table>
      <h2>Log consumers</h2>
      <table data-name="consumers">
        <thead><tr><th>Consumer</th><th>State</th><th>Position</th><th>Behind</th></tr></thead>
        <tbody>
          {Object.entries(consumers).map(([name, row]) => (
            <tr key={name}><td>{name}</td><td>{row.error ? `${row.state}: ${row.error}` : row.state}</td><td>{row.position}</td><td>{formatBytes(row.behindBytes)}</td></tr>
          ))}
        </tbody>
      </table>
      <h2>Subscription groups</h2>
      {Object.keys(subscriptions).length === 0 ? <p class="muted">No persistent subscription group.</p> : (
        <table data-name="subscription-stats">
          <thead><tr><th>Group</th><th>In flight</th><th>Parked</th><th>Lag</th><th>Acks/s</th><th>Connections</th></tr></thead>
          <tbody>
            {Object.entries(subscriptions).map(([name, row]) => (
              <tr key={name}><td>{name}</td><td>{row.inFlight}</td><td>{row.parked}</td><td>{row.lag}</td><td>{row.processedRate}</td><td>{row.connections}</td></tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

export function StatsPage({ api }: { api: Api }) {
  const { history, live, windowMs, choose, endMs } = useNodeHistory(api);
  const parts = useLive((signal) => api.json<NodeParts['svc']>('/stats/svc', { signal }).then((svc): NodeParts => ({ svc })), every(STATS_REFRESH_MS), [api]);
  return (
    <section>
      <h1>Statistics</h1>
      <div class="chart-bar">
        <LiveIndicator live={live} />
        <WindowChoice windowMs={windowMs} choose={choose} />
      </div>
      <div class="charts">
        {SERIES.map((name) => <Chart key={name} name={name} {...SERIES_LABELS[name]} values={history.series(name)} windowMs={windowMs} endMs={endMs} />)}
        {history.queueNames().map((queue) => (
          <Chart key={`queue-${queue}`} name={`queue-${queue}`} title={`Queue ${queue}`} values={history.points((sample) => sample.queueLengths?.[queue] ?? 0)}
            format={count} windowMs={windowMs} endMs={endMs} />
        ))}
      </div>
      <ErrorBanner error={parts.error} />
      {parts.data ? <Parts parts={parts.data} /> : null}
    </section>
  );
}
