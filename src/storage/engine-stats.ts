/**
 * The engine's statistics as one object: what the meters of its parts (log/meters.ts) and its
 * log consumers read at one instant, assembled by Engine.stats().
 */
import type { ConsumerStatus } from './read/log-consumers.js';
import type { QueueSnapshot } from './log/meters.js';

export interface EngineStatistics {
  /** writer.chk: the end of the durable log. */
  writerCheckpoint: number;
  /** Where the next record will be written: the end of the log including bytes not yet flushed. */
  writerPosition: number;
  /** chaser.chk as last written (once a second): how far the log had been processed (indexed) then. */
  chaserCheckpoint: number;
  writerQueue: QueueSnapshot;
  consumers: ConsumerStatus[];
  flushes: { count: number; bytesTotal: number; lastBytes: number; maxBytes: number; msTotal: number; lastMs: number; maxMs: number; refused: number };
  reads: { recordsFromMemory: number; recordsFromFile: number; streamInfoCacheHits: number; streamInfoCacheMisses: number; hashCollisions: number };
  index: { memTableEntries: number; frozenMemTables: number; files: number; commitPosition: number };
  /** Chunk numbers the log spans (EngineStatus.chunkCount); a file a scavenge merged covers several. */
  chunkCount: number;
}
