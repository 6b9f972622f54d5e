/** The polyline of a chart: values scaled to the box, the largest at the top, time left to right. */
export const WIDTH = 300;
export const HEIGHT = 60;

export function points(values: readonly number[], width = WIDTH, height = HEIGHT): string {
  if (values.length === 0) return '';
  const top = Math.max(...values, 1e-9);
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  return values.map((value, index) => `${(index * step).toFixed(1)},${(height - (value / top) * height).toFixed(1)}`).join(' ');
}
