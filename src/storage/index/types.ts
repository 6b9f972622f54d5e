import type { Logger } from '../../common/logger.js';

/** A 64-bit unsigned hash of a stream name. Injectable so tests can force collisions. */
export type StreamHasher = (streamName: string) => bigint;

/**
 * One index entry as a lookup returns it. `exact` is true when the entry is known to belong to
 * the stream asked for (the memory table is keyed by name); false when it only matched by hash
 * and the caller must confirm the stream name against the log record at `logPosition`.
 */
export interface IndexEntry {
  eventNumber: number;
  logPosition: number;
  exact: boolean;
}

export interface TableIndexOptions {
  /** The index directory (holds `indexmap`, `<GUID>` files and `<GUID>.bloomfilter`). */
  directory: string;
  /** Entries the memory table holds before it is written out as a level-0 index file. */
  memTableEntriesMax: number;
  hasher: StreamHasher;
  logger: Logger;
  /** Automatic merges stop above this level; mergeAll() merges everything regardless. */
  maxAutoMergeLevel?: number;
  /** Skip the md5 check of every index file at open (faster start; structure is still checked). */
  skipIndexVerify?: boolean;
}
