/** Counts and the node's durations as a person reads them: "1 chunk", "3 chunks", "0.24 s", "2 min 5 s". */
import { formatDuration } from '../common/human-units.js';

/** `1 chunk`, `2 chunks`; `plural` for nouns that do not just take an s. */
export function count(amount: number, singular: string, plural = `${singular}s`): string {
  return `${amount} ${amount === 1 ? singular : plural}`;
}

/** A duration the node writes as `hh:mm:ss.fffffff` (the reference's TimeSpan text), or the text itself if it is not one. */
export function timeSpan(text: string): string {
  const match = /^(?:(\d+)\.)?(\d+):(\d\d):(\d\d(?:\.\d+)?)$/.exec(text);
  if (!match) return text;
  const [, days, hours, minutes, seconds] = match;
  return formatDuration(Number(days ?? 0) * 86400 + Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds));
}
