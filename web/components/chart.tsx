/** A line chart of one figure over the dashboard's history, drawn as SVG (no styles inline). */
import { HEIGHT, points, WIDTH } from '../lib/chart-points.js';

export function Chart({ title, values, format }: { title: string; values: readonly number[]; format: (value: number) => string }) {
  const latest = values.at(-1);
  return (
    <figure class="chart" aria-label={title}>
      <figcaption><span>{title}</span><strong>{latest === undefined ? '–' : format(latest)}</strong></figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={`${title} over the last minutes`}>
        <polyline points={points(values)} fill="none" stroke="currentColor" stroke-width="1.5" vector-effect="non-scaling-stroke" />
      </svg>
    </figure>
  );
}
