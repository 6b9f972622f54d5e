/**
 * What the scavenger needs of the engine: the chunks, the log's records, the index and the
 * chunk-switch seam, and nothing else. The engine hands it out (Engine.scavengeAccess).
 */
import type { ChunkSwitchHold } from '../../log/chunk-switch-lock.js';
import type { ClientCommits } from '../../log/give-way.js';
import type { RewriteOptions, RewriteResult } from '../chunk-rewrite.js';
import type { IndexFileScavenge } from '../../index/table-index.js';
import type { IndexEntry } from '../../index/types.js';
import type { LogRecord, RecordHead } from '../../log/record.js';

/** One chunk file as the log holds it now (a merged file covers several chunk numbers). */
export interface ChunkFile {
  readonly startNumber: number;
  readonly endNumber: number;
  readonly fileName: string;
  readonly isCompleted: boolean;
  /** Bytes of records in the file. */
  readonly dataBytes: number;
  /** Bytes of the whole file. */
  readonly fileBytes: number;
}

/** A throttled run gives way to clients' commits (ClientCommits). */
export interface ScavengeAccess extends ClientCommits {
  readonly chunkSizeBytes: number;
  /** The chunk files in log order. */
  chunkFiles(): ChunkFile[];
  /** Where the next record will be written. */
  writerPosition(): number;
  completeActiveChunk(): Promise<number>;
  /**
   * Visits the records from `from` to `to` (log positions) that are in the log, in order; stops
   * early once the records visited add up to `maxBytes`, and returns where to go on from (`to`
   * once there).
   */
  scan(from: number, to: number, visit: (record: LogRecord, position: number) => void, maxBytes?: number): number;
  /** The 64-bit stream hash the index uses. */
  streamHash(streamName: string): bigint;
  /** Index entries of the stream numbered from..to, ascending; `exact` false ones may be another stream's. */
  indexEntries(streamName: string, from: number, to: number): IndexEntry[];
  /** The stream's last event number now (-1: none; DELETED_EVENT_NUMBER: hard deleted). */
  lastEventNumber(streamName: string): number;
  /** The record at `position`, or undefined when it was removed. */
  readRecordIfKept(position: number): LogRecord | undefined;
  /** Whether the record an index entry points to is still in the log. */
  isKept(position: number): boolean;
  rewriteChunks(start: number, end: number, keep: (record: RecordHead) => boolean, options: RewriteOptions, hold: ChunkSwitchHold): Promise<RewriteResult>;
  scavengeIndex(keep: (logPosition: number) => boolean, onFile: (report: IndexFileScavenge) => void, shouldStop: () => boolean): Promise<boolean>;
}
