/**
 * The ScavengeAccess of an open engine: its log, index and stream facts, and the chunk-switch seam,
 * each call checked against the engine's state as the engine's own calls are.
 */
import type { TableIndex } from '../../index/table-index.js';
import type { ClientCommits } from '../../log/give-way.js';
import { decodeRecord } from '../../log/record.js';
import type { TransactionLog } from '../../log/transaction-log.js';
import type { StreamLookup } from '../../streams/stream-info.js';
import type { ChunkSwitches } from '../chunk-switches.js';
import type { ScavengeAccess } from './access.js';

/** The engine's parts a scavenge works with, and its guards. */
export interface ScavengeSources extends ClientCommits {
  readonly log: TransactionLog;
  readonly index: TableIndex;
  readonly streams: StreamLookup;
  readonly switches: ChunkSwitches;
  streamHash(streamName: string): bigint;
  completeActiveChunk(): Promise<number>;
  /** Throws SVCDB_ERR_STORAGE_CLOSED unless the engine is open. */
  readonly checkOpen: () => void;
  /** Runs a read; a damaged record stops the engine and is thrown. */
  readonly guardRead: <T>(read: () => T) => T;
}

export function scavengeAccessOf(engine: ScavengeSources): ScavengeAccess {
  const { log, index, streams, switches, checkOpen, guardRead } = engine;
  return {
    chunkSizeBytes: log.chunkSize,
    chunkFiles: () => log.chunkList().map((chunk) => ({
      startNumber: chunk.header.startNumber, endNumber: chunk.header.endNumber, fileName: chunk.fileName,
      isCompleted: chunk.isCompleted, dataBytes: chunk.dataSize, fileBytes: chunk.isCompleted ? chunk.fileBytes : chunk.dataSize,
    })),
    writerPosition: () => log.writerPosition,
    completeActiveChunk: () => engine.completeActiveChunk(),
    commitWithClientsWaiting: () => engine.commitWithClientsWaiting(),
    scan: (from, to, visit, maxBytes) => {
      checkOpen();
      const end = Math.min(to, log.readableEnd);
      const reached = guardRead(() => log.scanChunks(from, end, (buffer, offset, position) => visit(decodeRecord(buffer, offset), position), maxBytes));
      return reached >= end ? to : reached;
    },
    streamHash: (streamName) => engine.streamHash(streamName),
    indexEntries: (streamName, from, to) => {
      checkOpen();
      return index.range(streamName, from, to);
    },
    lastEventNumber: (streamName) => {
      checkOpen();
      return guardRead(() => streams.lastEventNumber(streamName));
    },
    readRecordIfKept: (position) => {
      checkOpen();
      return guardRead(() => log.readRecordIfKept(position));
    },
    isKept: (position) => log.isKept(position),
    rewriteChunks: (start, end, keep, options, hold) => switches.rewrite(start, end, keep, options, hold),
    scavengeIndex: async (keep, onFile, shouldStop) => {
      checkOpen();
      return index.scavenge(keep, onFile, shouldStop);
    },
  };
}
