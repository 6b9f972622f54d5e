/** What every phase of a run works with. */
import type Database from 'better-sqlite3';
import type { Logger } from '../../../common/logger.js';
import type { ChunkSwitchHold } from '../../log/chunk-switch-lock.js';
import type { ScavengeAccess } from './access.js';
import type { CheckpointValue } from './state-db.js';
import type { StreamData } from './stream-data.js';
import type { StreamKeys } from './stream-keys.js';
import type { Throttle } from './throttle.js';
import type { ScavengeObserver, ScavengePoint, ScavengeProgress, ScavengeRunOptions } from './types.js';
import type { ChunkTables } from './weights.js';

export interface RunContext {
  readonly access: ScavengeAccess;
  readonly db: Database.Database;
  readonly keys: StreamKeys;
  readonly data: StreamData;
  readonly chunks: ChunkTables;
  readonly point: ScavengePoint;
  /** The chunk holding the point: the last chunk the run executes. */
  readonly pointChunk: number;
  readonly options: ScavengeRunOptions;
  readonly hold: ChunkSwitchHold;
  readonly throttle: Throttle;
  readonly logger: Logger;
  readonly observer: ScavengeObserver;
  /** The checkpoint as last saved. */
  readonly checkpoint: CheckpointValue;
  saveCheckpoint(change: Partial<CheckpointValue>): void;
  transaction(work: () => void): void;
  shouldStop(): boolean;
  chunkOf(position: number): number;
  /** Reports progress within the current stage. */
  progress(done: number, unit: NonNullable<ScavengeProgress['unit']>): void;
  /** Adds to the bytes reclaimed so far. */
  reclaimed(bytes: number): void;
}
