/**
 * The progress of a copy in words, as `pg_basebackup -P` gives it: bytes done of the total
 * estimated at the start, the percent, the rate so far and the time left at that rate. Without a
 * total (restore, verify) it says what it has: files and bytes so far.
 */
import { formatBytes, formatDuration, formatRate } from '../common/human-units.js';
import type { Progress } from '../common/progress.js';

/** A rate over less than this says more about start-up than about the copy; none is shown before. */
const RATE_AFTER_SECONDS = 1;

/**
 * `48.0 MiB of 65.1 MiB (73%), 12.3 MiB/s, 1.4 s left · chunks db/chunk-000000.000000`: the figures
 * first, so a narrow terminal cuts the file name rather than them.
 */
export function progressText(progress: Progress, elapsedSeconds: number): string {
  const doing = progress.file ? `${progress.phase} ${progress.file}` : progress.phase;
  const done = progress.bytesCopied + (progress.bytesSkipped ?? 0);
  if (progress.bytesTotal === undefined) return `${doing} (${progress.filesCopied} files, ${formatBytes(done)})`;
  // The node writes on while it is backed up: the estimate can fall short, and is then the work done.
  const total = Math.max(progress.bytesTotal, done);
  const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
  const parts = [`${formatBytes(done)} of ${formatBytes(total)} (${percent}%)`];
  // Only copied bytes take time; skipped ones are not a rate.
  const rate = elapsedSeconds >= RATE_AFTER_SECONDS ? progress.bytesCopied / elapsedSeconds : 0;
  if (rate > 0) parts.push(formatRate(rate));
  if (rate > 0 && done < total) parts.push(`${formatDuration((total - done) / rate)} left`);
  return `${parts.join(', ')} · ${doing}`;
}

/** The same progress at its end: everything estimated is done, whatever the estimate was. */
export function finishedProgress(progress: Progress): Progress {
  const done = progress.bytesCopied + (progress.bytesSkipped ?? 0);
  return progress.bytesTotal === undefined ? progress : { ...progress, phase: 'done', file: undefined, bytesTotal: done };
}
