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
}

export type ProgressListener = (progress: Progress) => void;
