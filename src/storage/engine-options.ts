import { Errors } from '../common/errors.js';
import { silentLogger, type Logger } from '../common/logger.js';
import type { StreamHasher } from './index/types.js';
import { defaultStreamHasher } from './index/stream-hash.js';

export type ChunkVerification = 'background' | 'blocking' | 'off';

export interface EngineOptions {
  dbPath: string;
  indexPath: string;
  /** Logical bytes of records per chunk. */
  chunkSizeBytes?: number;
  /** Index entries held in memory before they are written to an index file. */
  memTableEntriesMax?: number;
  /** Streams whose last event number and metadata are cached. */
  streamInfoCacheCapacity?: number;
  /** Size of the stream existence filter; about one byte per expected stream; 0 turns it off. */
  existenceFilterSizeBytes?: number;
  /** Completed chunks kept in memory for reads. */
  cachedChunksMax?: number;
  /** Event ids remembered for idempotent appends with expected version "any". */
  recentEventIdsMax?: number;
  /** How completed chunks' hashes are checked at start. */
  verifyChunks?: ChunkVerification;
  logger?: Logger;
  /** Replaces the stream hash; tests use it to force collisions. */
  streamHasher?: StreamHasher;
  /** Milliseconds since the Unix epoch, for timestamps and $maxAge; tests move time with it. */
  clock?: () => number;
  /**
   * A read-only replica's engine: its log is the leader's, written through replicaAppender(); it
   * writes no epoch of its own and refuses every write of streams.
   */
  replica?: boolean;
  /**
   * The least number the epoch written at open may have: a cluster leader's term, so that each
   * term's epoch is numbered by it. Epoch numbers still only grow: a smaller value changes nothing.
   */
  epochNumberAtLeast?: number;
}

export type ResolvedEngineOptions = Required<EngineOptions>;

export const CHUNK_SIZE_BYTES_MIN = 64 * 1024;
export const CHUNK_SIZE_BYTES_MAX = 1024 * 1024 * 1024;

const defaults = {
  chunkSizeBytes: 256 * 1024 * 1024,
  memTableEntriesMax: 1_000_000,
  streamInfoCacheCapacity: 100_000,
  existenceFilterSizeBytes: 64 * 1024 * 1024,
  cachedChunksMax: 2,
  recentEventIdsMax: 100_000,
  verifyChunks: 'background' as ChunkVerification,
  logger: silentLogger,
  streamHasher: defaultStreamHasher,
  clock: Date.now,
  replica: false,
  epochNumberAtLeast: 0,
};

function checkRange(name: string, value: number, min: number, max: number): void {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw Errors.invalidArgument.create(name, `${value} is not an integer from ${min} to ${max}`);
  }
}

/** Fills in defaults and checks ranges once, at open. */
export function resolveEngineOptions(options: EngineOptions): ResolvedEngineOptions {
  const resolved = { ...defaults, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) } as ResolvedEngineOptions;
  checkRange('chunk size', resolved.chunkSizeBytes, CHUNK_SIZE_BYTES_MIN, CHUNK_SIZE_BYTES_MAX);
  checkRange('memory table size', resolved.memTableEntriesMax, 1, 100_000_000);
  checkRange('stream info cache capacity', resolved.streamInfoCacheCapacity, 1, 100_000_000);
  checkRange('existence filter size', resolved.existenceFilterSizeBytes, 0, 4 * 1024 * 1024 * 1024);
  if (resolved.existenceFilterSizeBytes > 0 && resolved.existenceFilterSizeBytes < 4096) {
    throw Errors.invalidArgument.create('existence filter size', 'it must be 0 (no filter) or at least 4096 bytes');
  }
  checkRange('cached chunks', resolved.cachedChunksMax, 0, 64);
  checkRange('recent event ids', resolved.recentEventIdsMax, 1, 100_000_000);
  if (!['background', 'blocking', 'off'].includes(resolved.verifyChunks)) {
    throw Errors.invalidArgument.create('chunk verification', `${resolved.verifyChunks} is not background, blocking or off`);
  }
  return Object.freeze(resolved);
}
