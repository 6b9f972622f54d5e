/**
 * The node at a glance: state, version and uptime from `/info` and `/stats`, charts of the
 * node's own recent samples (`/stats/history`, so they survive going to another page and back)
 * in a chosen time window, the cluster's members with a replica's lag, and the live tail of `$all`.
 */
import type { Api } from '../lib/api.js';
import { formatDuration } from '../../src/common/human-units.js';
import { SERIES_LABELS } from '../lib/series-labels.js';
import type { SeriesName } from '../lib/node-history.js';
import { Chart, WindowChoice } from '../components/chart.js';
import { LiveIndicator } from '../components/live.js';
import { Members } from '../components/members.js';
import { useNodeHistory } from '../components/node-history.js';
import { ErrorBanner, useLoad } from '../components/ui.js';
import { Tail } from './tail.js';

interface NodeInfo {
  svcVersion?: string;
  state?: string;
}

const CHARTS: SeriesName[] = ['appendsPerSecond', 'readsPerSecond', 'requestsPerSecond', 'queueLength', 'flushMs', 'diskUsedPercent', 'diskFreeBytes'];

export function Dashboard({ api }: { api: Api }) {
  const info = useLoad((signal) => api.json<NodeInfo>('/info', { signal }), [api]);
  const started = useLoad((signal) => api.json<string>('/stats/proc/startTime', { signal }), [api]);
  const { history, live, windowMs, choose, endMs } = useNodeHistory(api);
  const startTime = started.data;
  const uptime = startTime ? formatDuration(Math.floor((Date.now() - Date.parse(startTime)) / 1000)) : '–';
  return (
    <section>
      <h1>Dashboard</h1>
      <dl class="facts">
        <dt>State</dt><dd data-name="state">{info.data?.state ?? '–'}</dd>
        <dt>Version</dt><dd data-name="version">{info.data?.svcVersion ?? '–'}</dd>
        <dt>Uptime</dt><dd data-name="uptime">{uptime}</dd>
      </dl>
      <ErrorBanner error={info.error ?? started.error} />
      <Members api={api} />
      <div class="chart-bar">
        <LiveIndicator live={live} />
        <WindowChoice windowMs={windowMs} choose={choose} />
        <a href="#/stats">All statistics</a>
      </div>
      <div class="charts">
        {CHARTS.map((name) => <Chart key={name} name={name} {...SERIES_LABELS[name]} values={history.series(name)} windowMs={windowMs} endMs={endMs} />)}
      </div>
      <Tail api={api} />
    </section>
  );
}
