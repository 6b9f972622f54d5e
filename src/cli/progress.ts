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

export function progressDisplay(title: string, json: boolean): ProgressDisplay {
  const shown = !json && process.stderr.isTTY === true;
  const spinner: Ora = ora({ text: title, stream: process.stderr, isEnabled: shown, isSilent: !shown });
  if (shown) spinner.start();
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
