/**
 * Progress of a long command (backup, verify, restore) as an ora spinner on stderr, only when
 * stderr is a terminal and --json is off. Anywhere else (cron, a pipe, --json) it prints nothing:
 * the command's result and its errors are the whole output.
 */
import ora, { type Ora } from 'ora';
import type { Progress } from '../common/progress.js';

export interface ProgressDisplay {
  update(progress: Progress): void;
  succeed(text: string): void;
  fail(): void;
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

/**
 * An ora spinner on stderr, shown only on a terminal without --json (`shown`). A terminal that
 * reports no columns (a pseudo-terminal not sized yet, as `script` or `docker exec -t` give) gets
 * the title and the final line without the animation: ora divides by the width, and would clear
 * lines without end instead of letting the command run.
 */
export function terminalSpinner(title: string, json: boolean): { spinner: Ora; shown: boolean } {
  const shown = !json && process.stderr.isTTY === true;
  const animated = shown && process.stderr.columns > 0;
  // stdin is left alone: ora's discarding of it can hold the process open after the summary.
  const spinner = ora({ text: title, stream: process.stderr, isEnabled: animated, isSilent: !shown, discardStdin: false });
  if (shown) spinner.start();
  return { spinner, shown };
}

export function progressDisplay(title: string, json: boolean): ProgressDisplay {
  const { spinner, shown } = terminalSpinner(title, json);
  return {
    update(progress) {
      if (!shown) return;
      const file = progress.file ? ` ${progress.file}` : '';
      spinner.text = `${title}: ${progress.phase}${file} (${progress.filesCopied} files, ${formatBytes(progress.bytesCopied)})`;
    },
    succeed(text) {
      if (shown) spinner.succeed(text);
    },
    fail() {
      if (shown) spinner.fail();
    },
  };
}
