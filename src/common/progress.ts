/**
 * Progress of a long operation, as a command shows it: what the operation is doing, the file in
 * hand and the running totals. Operations in src/maint report it; the CLI draws it (a spinner on
 * a terminal) without knowing which operation it is.
 */
export interface Progress {
  /** What the operation is doing now, in a few words ("chunks", "verify"). */
  phase: string;
  /** The file being handled, relative to what the operation works on. */
  file?: string;
  filesCopied: number;
  bytesCopied: number;
  /** Bytes of files found unchanged and left as they were: done without being copied. */
  bytesSkipped?: number;
  /**
   * What copied and skipped bytes should add up to, estimated when the operation started (as
   * `pg_basebackup -P` does); absent when the operation cannot tell in advance.
   */
  bytesTotal?: number;
}

export type ProgressListener = (progress: Progress) => void;
