/**
 * What a chunk replacement is made of, as the log sees it (TransactionLog.replaceChunks): the
 * range of chunks replaced, the validator that decides whether the candidate may replace them
 * (maintenance/replacement-check.ts holds the one the engine uses), and the steps it goes through.
 */
import type { Chunk } from './chunk.js';
import type { ChunkHeader } from './chunk-format.js';

/** The steps of a replacement, in order; `onStep` hears each once it is done. */
export type ReplacementStep = 'validated' | 'renamed' | 'switched' | 'removed';

export interface ReplaceOptions {
  /** Hears each step once it is done. */
  onStep?: (step: ReplacementStep) => void | Promise<void>;
  /**
   * Keeps the replaced files (renamed out of the chunk names) until the log is told to delete
   * them, for switches that follow each other at once: deleting a large file makes the file
   * system's next fsyncs wait, the following switches' among them.
   */
  deleteReplacedLater?: boolean;
}

/** The chunks being replaced, as the log holds them. */
export interface ReplacedRange {
  chunkSize: number;
  /** The chunk that holds chunk number `n` now. */
  chunkAt(n: number): Chunk | undefined;
}

/** Returns the chunks the candidate replaces (oldest first), or throws the coded refusal. */
export type ReplacementValidator = (candidate: Chunk, range: ReplacedRange) => Promise<Chunk[]>;

// What the log hands a rewrite (TransactionLog.rewriteSource, chunkRange), and what comes back.

export interface RewrittenRecord {
  /** The record's offset in the new chunk's logical space (its log position − the chunk's start). */
  logical: number;
  /** The whole frame, length prefix and suffix included. */
  frame: Buffer;
}

/** The completed chunks a rewrite reads, with the header and logical size of the range. */
export interface RewriteSource {
  header: ChunkHeader;
  logicalDataSize: number;
  /** The chunk files, oldest first (a merged file once). */
  chunks: Chunk[];
  chunkSize: number;
}
