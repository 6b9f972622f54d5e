/**
 * A line chart of one series over a time window, drawn as SVG (no styles inline), with its axes:
 * the value scale at the left (in the series' unit, from 0 to a round top) and the window's time
 * at the bottom, ending now.
 */
import { HEIGHT, niceTop, points, WIDTH } from '../lib/chart-points.js';
import type { Point } from '../lib/node-history.js';

export interface ChartProps {
  title: string;
  values: readonly Point[];
  format: (value: number) => string;
  windowMs: number;
  /** The end of the window: the newest sample's time, so charts do not drift between samples. */
  endMs: number;
  name?: string;
}

function minutesAgo(ms: number): string {
  const minutes = ms / 60_000;
  return minutes >= 1 ? `−${minutes.toFixed(minutes % 1 === 0 ? 0 : 1)} min` : `−${Math.round(ms / 1000)} s`;
}

export function Chart({ title, values, format, windowMs, endMs, name }: ChartProps) {
  const startMs = endMs - windowMs;
  const shown = values.filter((point) => point.timeMs >= startMs);
  const latest = shown.at(-1)?.value;
  const top = niceTop(Math.max(0, ...shown.map((point) => point.value)));
  return (
    <figure class="chart" aria-label={title} data-name={name}>
      <figcaption><span>{title}</span><strong data-name="latest">{latest === undefined ? '–' : format(latest)}</strong></figcaption>
      <div class="plot">
        <div class="y-axis" data-name="y-axis"><span>{format(top)}</span><span>{format(top / 2)}</span><span>{format(0)}</span></div>
        <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={`${title}, ${minutesAgo(windowMs)} to now, up to ${format(top)}`}>
          <line class="grid" x1="0" y1={HEIGHT / 2} x2={WIDTH} y2={HEIGHT / 2} vector-effect="non-scaling-stroke" />
          <polyline points={points(shown, startMs, endMs, top)} fill="none" stroke="currentColor" stroke-width="1.5" vector-effect="non-scaling-stroke" />
        </svg>
        <div class="x-axis" data-name="x-axis"><span>{minutesAgo(windowMs)}</span><span>{minutesAgo(windowMs / 2)}</span><span>now</span></div>
      </div>
    </figure>
  );
}

/** The time windows a page of charts offers, in milliseconds. */
export const WINDOWS_MS = [60_000, 5 * 60_000, 10 * 60_000];

export function WindowChoice({ windowMs, choose }: { windowMs: number; choose: (windowMs: number) => void }) {
  return (
    <div class="tabs" role="group" aria-label="Time window" data-name="window">
      {WINDOWS_MS.map((option) => (
        <button key={option} type="button" aria-pressed={option === windowMs} onClick={() => choose(option)}>{`${option / 60_000} min`}</button>
      ))}
    </div>
  );
}
