/** A line chart of one figure over the dashboard's history, drawn as SVG (no styles inline). */
const WIDTH = 300;
const HEIGHT = 60;

export function points(values: readonly number[], width = WIDTH, height = HEIGHT): string {
  if (values.length === 0) return '';
  const top = Math.max(...values, 1e-9);
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  return values.map((value, index) => `${(index * step).toFixed(1)},${(height - (value / top) * height).toFixed(1)}`).join(' ');
}

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
