/**
 * Progress of a long command (backup, verify, restore) as an ora spinner on stderr, only when
 * stderr is a terminal and --json is off. Anywhere else (cron, a pipe, --json) it prints nothing,
 * so the command's result and its errors are the whole output, unless the command was asked for
 * progress lines (`backup --progress`, like `pg_basebackup -P` into a log): then a line at most
 * once a second on stderr, and a last one when it is done.
 */
import ora, { type Ora } from 'ora';
import type { Progress } from '../common/progress.js';
import { finishedProgress, progressText } from './progress-text.js';

/** Progress lines written without a terminal, at most this often. */
const LINE_INTERVAL_MS = 1000;

export interface ProgressDisplay {
  update(progress: Progress): void;
  succeed(text: string): void;
  fail(): void;
}

/**
 * An ora spinner on stderr, shown only on a terminal without --json (`shown`). A terminal that
 * reports no columns (a pseudo-terminal not sized yet, as `script` or `docker exec -t` give) gets
 * the title and the final line without the animation: ora divides by the width, and would clear
 * lines without end instead of letting the command run.
 */
export function terminalSpinner(title: string, json: boolean): { spinner: Ora; shown: boolean; animated: boolean } {
  const shown = !json && process.stderr.isTTY === true;
  const animated = shown && process.stderr.columns > 0;
  // stdin is left alone: ora's discarding of it can hold the process open after the summary.
  const spinner = ora({ text: title, stream: process.stderr, isEnabled: animated, isSilent: !shown, discardStdin: false });
  if (shown) spinner.start();
  return { spinner, shown, animated };
}

export interface ProgressOptions {
  json: boolean;
  /** Progress lines on stderr where the spinner is not shown (a pipe, a log file, --json). */
  lines?: boolean;
}

export function progressDisplay(title: string, options: boolean | ProgressOptions): ProgressDisplay {
  const { json, lines = false } = typeof options === 'boolean' ? { json: options } : options;
  const { spinner, shown, animated } = terminalSpinner(title, json);
  const startedAt = performance.now();
  const elapsedSeconds = () => (performance.now() - startedAt) / 1000;
  const writeLines = lines && !shown;
  let lastLineAt = -Infinity;
  let last: Progress | undefined;
  const writeLine = (progress: Progress) => {
    lastLineAt = performance.now();
    process.stderr.write(`${title}: ${progressText(progress, elapsedSeconds())}\n`);
  };
  return {
    update(progress) {
      if (shown) {
        const phaseChanged = progress.phase !== last?.phase;
        spinner.text = `${title}: ${progressText(progress, elapsedSeconds())}`;
        // A new phase is drawn at once: short phases would otherwise end between two frames.
        if (phaseChanged && animated) spinner.render();
      } else if (writeLines && performance.now() - lastLineAt >= LINE_INTERVAL_MS) {
        writeLine(progress);
      }
      last = progress;
    },
    succeed(text) {
      if (shown) spinner.succeed(text);
      else if (writeLines && last) writeLine(finishedProgress(last));
    },
    fail() {
      if (shown) spinner.fail();
    },
  };
}
