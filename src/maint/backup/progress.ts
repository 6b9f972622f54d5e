/**
 * What backup, verify and restore did, file by file: the tally they return (for --json and the
 * tests) and the progress they report while they run (for a spinner on a terminal).
 */

import type { Progress as CommonProgress } from '../../common/progress.js';

export type Phase =
  | 'index checkpoints' | 'index files' | 'database checkpoints' | 'chunks' | 'cleanup'
  | 'verify' | 'extract' | 'restore';

/** A backup's progress: the common form, with the phases of the backup procedures. */
export interface Progress extends CommonProgress {
  phase: Phase;
}

export type ProgressListener = (progress: Progress) => void;

export interface CopiedFile {
  file: string;
  bytes: number;
}

export interface TallyReport {
  /** Files written, in the order they were written. */
  copied: CopiedFile[];
  /** Files the destination already had and that were left as they were. */
  skipped: string[];
  /** Files deleted from the destination (stale index files, chunks gone from the source, .old). */
  removed: string[];
  bytesCopied: number;
}

export class Tally {
  private readonly report: TallyReport = { copied: [], skipped: [], removed: [], bytesCopied: 0 };
  private currentPhase: Phase = 'index checkpoints';
  private bytesSkipped = 0;
  private bytesTotal: number | undefined;

  constructor(private readonly listener: ProgressListener = () => undefined) {}

  /** What the progress counts towards (estimate.ts). */
  expect(bytesTotal: number): void {
    this.bytesTotal = bytesTotal;
    this.emit();
  }

  phase(phase: Phase): void {
    this.currentPhase = phase;
    this.emit();
  }

  /** Called before a file is handled, so the spinner names what takes the time. */
  working(file: string): void {
    this.emit(file);
  }

  copied(file: string, bytes: number): void {
    this.report.copied.push({ file, bytes });
    this.report.bytesCopied += bytes;
    this.emit(file);
  }

  /** `bytes`: the size of the file left as it was, which counts as done. */
  skipped(file: string, bytes = 0): void {
    this.report.skipped.push(file);
    this.bytesSkipped += bytes;
  }

  removed(file: string): void {
    this.report.removed.push(file);
  }

  result(): TallyReport {
    return this.report;
  }

  private emit(file?: string): void {
    this.listener({
      phase: this.currentPhase, file, filesCopied: this.report.copied.length, bytesCopied: this.report.bytesCopied,
      bytesSkipped: this.bytesSkipped, ...(this.bytesTotal === undefined ? {} : { bytesTotal: this.bytesTotal }),
    });
  }
}
