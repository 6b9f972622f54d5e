/**
 * A chart's geometry: the polyline of points in a time window (oldest at the left, now at the
 * right), scaled to a top that is a round number, so the axis labels read well.
 */
import type { Point } from './node-history.js';

export const WIDTH = 300;
export const HEIGHT = 60;

/** The smallest of 1, 2, 5 × 10^n at or above `value` (1 for nothing to show). */
export function niceTop(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((multiple) => multiple * power >= value) ?? 10;
  return step * power;
}

export function points(values: readonly Point[], startMs: number, endMs: number, top: number, width = WIDTH, height = HEIGHT): string {
  const span = Math.max(1, endMs - startMs);
  return values
    .filter((point) => point.timeMs >= startMs && point.timeMs <= endMs)
    .map((point) => `${(((point.timeMs - startMs) / span) * width).toFixed(1)},${(height - (Math.min(point.value, top) / top) * height).toFixed(1)}`)
    .join(' ');
}
