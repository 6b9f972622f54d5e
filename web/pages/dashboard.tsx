/**
 * The node at a glance: state, version and uptime from `/info` and `/stats`, charts of the last
 * five minutes refreshed every second, and the live tail of `$all`.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../lib/api.js';
import { formatBytes, formatDuration, Series, type FigureName } from '../lib/series.js';
import { Chart } from '../components/chart.js';
import { ErrorBanner, useLoad } from '../components/ui.js';
import { Tail } from './tail.js';

export const REFRESH_MS = 1000;

interface NodeInfo {
  svcVersion?: string;
  state?: string;
}

const rate = (value: number) => `${value.toFixed(1)}/s`;
const CHARTS: Array<[FigureName, string, (value: number) => string]> = [
  ['appendsPerSecond', 'Appends', rate],
  ['readsPerSecond', 'Reads', rate],
  ['requestsPerSecond', 'HTTP requests', rate],
  ['queueLength', 'Queue lengths', (value) => String(value)],
  ['flushMs', 'Writer flush', (value) => `${value.toFixed(2)} ms`],
  ['diskUsedPercent', 'Disk used', (value) => `${value.toFixed(1)} %`],
  ['diskFreeBytes', 'Disk free', formatBytes],
];

function useStats(api: Api) {
  const series = useRef(new Series());
  const [, setTick] = useState(0);
  const [error, setError] = useState<unknown>();
  const [startTime, setStartTime] = useState<string>();
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const controller = new AbortController();
    const poll = async () => {
      try {
        const stats = await api.json<{ proc?: { startTime?: string } }>('/stats', { signal: controller.signal });
        series.current.add({ timeMs: performance.now(), stats });
        setStartTime(stats.proc?.startTime);
        setError(undefined);
        setTick((tick) => tick + 1);
      } catch (caught) {
        if (!stopped) setError(caught);
      }
      // The next refresh is timed from the end of this one, so a slow node is never asked twice at once.
      if (!stopped) timer = setTimeout(() => void poll(), REFRESH_MS);
    };
    void poll();
    return () => { stopped = true; controller.abort(); clearTimeout(timer); };
  }, [api]);
  return { series: series.current, error, startTime };
}

export function Dashboard({ api }: { api: Api }) {
  const info = useLoad((signal) => api.json<NodeInfo>('/info', { signal }), [api]);
  const { series, error, startTime } = useStats(api);
  const uptime = startTime ? formatDuration(Math.floor((Date.now() - Date.parse(startTime)) / 1000)) : '–';
  return (
    <section>
      <h1>Dashboard</h1>
      <dl class="facts">
        <dt>State</dt><dd data-name="state">{info.data?.state ?? '–'}</dd>
        <dt>Version</dt><dd data-name="version">{info.data?.svcVersion ?? '–'}</dd>
        <dt>Uptime</dt><dd data-name="uptime">{uptime}</dd>
      </dl>
      <ErrorBanner error={info.error ?? error} />
      <div class="charts">
        {CHARTS.map(([name, title, format]) => <Chart key={name} title={title} values={series.values(name)} format={format} />)}
      </div>
      <Tail api={api} />
    </section>
  );
}
