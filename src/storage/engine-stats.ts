/**
 * The engine's statistics as one object: what the meters of its parts (log/meters.ts) and its
 * log consumers read at one instant, assembled here (engineStatistics) for Engine.stats().
 */
import type { ConsumerStatus, LogConsumers } from './read/log-consumers.js';
import type { FlushMeter, QueueMeter, QueueSnapshot } from './log/meters.js';
import type { Checkpoint } from './log/checkpoint.js';
import type { TransactionLog } from './log/transaction-log.js';
import type { TableIndex } from './index/table-index.js';

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
  /** `files` counts the index files; `commitPosition` is the log position they cover. */
  index: { memTableEntries: number; frozenMemTables: number; files: number; commitPosition: number };
  /** Chunk numbers the log spans (EngineStatus.chunkCount); a file a scavenge merged covers several. */
  chunkCount: number;
}

/** The parts of an engine whose meters and positions its statistics read. */
export interface MeteredParts {
  log: TransactionLog;
  writerCheckpoint: Checkpoint;
  chaserCheckpoint: Checkpoint;
  appender: { readonly queueMeter: QueueMeter; readonly flushMeter: FlushMeter };
  index: TableIndex;
  consumers: LogConsumers;
}

/** The statistics of an engine now: plain numbers, cheap to take at any time. */
export function engineStatistics({ log, writerCheckpoint, chaserCheckpoint, appender, index, consumers }: MeteredParts): EngineStatistics {
  const flushes = appender.flushMeter;
  const reads = log.reads;
  const indexStats = index.stats();
  return {
    writerCheckpoint: writerCheckpoint.value,
    writerPosition: log.writerPosition,
    chaserCheckpoint: chaserCheckpoint.value,
    writerQueue: appender.queueMeter.snapshot(),
    flushes: {
      count: flushes.flushes, bytesTotal: flushes.bytesTotal, lastBytes: flushes.lastBytes, maxBytes: flushes.maxBytes,
      msTotal: flushes.msTotal, lastMs: flushes.lastMs, maxMs: flushes.maxMs, refused: flushes.refusedCount,
    },
    reads: {
      recordsFromMemory: reads.recordsFromMemory, recordsFromFile: reads.recordsFromFile,
      streamInfoCacheHits: reads.streamInfoCacheHits, streamInfoCacheMisses: reads.streamInfoCacheMisses,
      hashCollisions: reads.hashCollisions,
    },
    index: {
      memTableEntries: indexStats.memTableEntries, frozenMemTables: indexStats.frozenMemTables, files: indexStats.files.length,
      commitPosition: indexStats.commitPosition,
    },
    chunkCount: log.chunkCount,
    consumers: consumers.statuses(),
  };
}
