/**
 * The spinner of `svcdb scavenge start --wait`: phase, chunks done and bytes reclaimed, on stderr,
 * only when stderr is a terminal and --json is off. From cron (no terminal) it prints nothing.
 */
import { formatBytes } from '../common/human-units.js';
import { terminalSpinner } from './progress.js';

export interface ScavengeProgressView {
  phase: string;
  /** What chunksDone counts: chunks (of chunksTotal), or streams, merges, indexFiles. */
  unit?: string;
  chunksDone: number;
  chunksTotal: number;
  spaceSaved: number;
}

export interface ScavengeDisplay {
  readonly shown: boolean;
  update(progress: ScavengeProgressView): void;
  succeed(text: string): void;
  fail(): void;
}

const unitLabels: Record<string, string> = { chunks: 'chunks', streams: 'streams', merges: 'merges', indexFiles: 'index files' };

export function scavengeProgressText(progress: ScavengeProgressView): string {
  const unit = progress.unit ?? 'chunks';
  const counted = unit === 'chunks' && progress.chunksTotal > 0 ? `chunks ${progress.chunksDone}/${progress.chunksTotal}` : `${unitLabels[unit] ?? unit} ${progress.chunksDone}`;
  return `Scavenging: ${progress.phase}, ${counted}, ${formatBytes(progress.spaceSaved)} reclaimed`;
}

export function scavengeDisplay(title: string, json: boolean): ScavengeDisplay {
  const { spinner, shown } = terminalSpinner(title, json);
  return {
    shown,
    update(progress) {
      if (shown) spinner.text = scavengeProgressText(progress);
    },
    succeed(text) {
      if (shown) spinner.succeed(text);
    },
    fail() {
      if (shown) spinner.fail();
    },
  };
}
