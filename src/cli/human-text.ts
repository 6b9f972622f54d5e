/** Counts and durations as a person reads them: "1 chunk", "3 chunks", "0.24 s", "2 min 5 s". */

/** `1 chunk`, `2 chunks`; `plural` for nouns that do not just take an s. */
export function count(amount: number, singular: string, plural = `${singular}s`): string {
  return `${amount} ${amount === 1 ? singular : plural}`;
}

/** Seconds to the second, minutes and hours past a minute: `0.24 s`, `12.5 s`, `2 min 5 s`, `1 h 3 min`. */
export function duration(seconds: number): string {
  if (seconds < 60) return `${Number(seconds.toFixed(seconds < 10 ? 2 : 1))} s`;
  const whole = Math.round(seconds);
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  return hours > 0 ? `${hours} h ${minutes} min` : `${minutes} min ${whole % 60} s`;
}

/** A duration the node writes as `hh:mm:ss.fffffff` (the reference's TimeSpan text), or the text itself if it is not one. */
export function timeSpan(text: string): string {
  const match = /^(?:(\d+)\.)?(\d+):(\d\d):(\d\d(?:\.\d+)?)$/.exec(text);
  if (!match) return text;
  const [, days, hours, minutes, seconds] = match;
  return duration(Number(days ?? 0) * 86400 + Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds));
}
