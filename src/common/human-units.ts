/**
 * Byte counts and durations as a person reads them, written one way wherever svcdb shows them:
 * the CLI's results and progress, and the web console (which imports this file).
 */

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** `512 B`, `1.5 KiB`, `5.0 TiB`: binary units, one decimal past bytes. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${BYTE_UNITS[unit]}`;
}

/** `12.5 MiB/s`: bytes per second. */
export function formatRate(bytesPerSecond: number): string {
  return `${formatBytes(bytesPerSecond)}/s`;
}

/**
 * Seconds to the hundredth under 10 s, to the tenth under a minute, then the two largest units:
 * `0.24 s`, `12.5 s`, `2 min 5 s`, `1 h 3 min`, `2 d 4 h`.
 */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Number(Math.max(0, seconds).toFixed(seconds < 10 ? 2 : 1))} s`;
  const whole = Math.round(seconds);
  const days = Math.floor(whole / 86400);
  const hours = Math.floor((whole % 86400) / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  if (days > 0) return `${days} d ${hours} h`;
  return hours > 0 ? `${hours} h ${minutes} min` : `${minutes} min ${whole % 60} s`;
}
