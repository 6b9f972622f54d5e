/**
 * The engine's statistics as one object: what the meters of its parts (log/meters.ts) and its
 * log consumers read at one instant, assembled by Engine.stats().
 */
import type { ConsumerStatus } from './read/log-consumers.js';
import type { QueueSnapshot } from './log/meters.js';

export interface EngineStatistics {
  /** writer.chk: the end of the durable log. */
  writerCheckpoint: number;
  /** The end of the log including bytes written but not yet flushed. */
  writerPosition: number;
  chaserCheckpoint: number;
  writerQueue: QueueSnapshot;
  consumers: ConsumerStatus[];
  flushes: { count: number; bytesTotal: number; lastBytes: number; maxBytes: number; msTotal: number; lastMs: number; maxMs: number; refused: number };
  reads: { recordsFromMemory: number; recordsFromFile: number; streamInfoCacheHits: number; streamInfoCacheMisses: number; hashCollisions: number };
  index: { memTableEntries: number; frozenMemTables: number; files: number; commitPosition: number };
  chunkCount: number;
}
