/**
 * Durations in the scavenge events as the reference serializes them: a TimeSpan string
 * `hh:mm:ss.fffffff` (seven digits of fractions, 100 ns ticks), days prefixed as `d.` when any.
 */
const TICKS_PER_MS = 10_000;

export function timeSpanText(ms: number): string {
  const ticks = Math.max(0, Math.round(ms * TICKS_PER_MS));
  const totalSeconds = Math.floor(ticks / 10_000_000);
  const fraction = ticks % 10_000_000;
  const days = Math.floor(totalSeconds / 86_400);
  const hours = Math.floor((totalSeconds % 86_400) / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${days > 0 ? `${days}.` : ''}${pad(hours)}:${pad(minutes)}:${pad(seconds)}.${pad(fraction, 7)}`;
}
