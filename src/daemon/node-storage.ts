/**
 * The storage a node runs on, as the composition root and the parts it opens see it: a leaf of
 * types, so the scavenger's opener and the tests that inject storage name it without importing
 * the composition root.
 */
import type { Logger } from '../common/logger.js';
import type { Engine } from '../storage/engine.js';
import type { EngineOptions } from '../storage/engine-options.js';
import type { Scavenger } from '../storage/maintenance/scavenge/types.js';
import type { RedactionStorage } from './redaction/redaction-service.js';
import type { ScavengeStorage } from './scavenge/scavenge-service.js';
import type { StreamStorage } from './services/streams.js';

/** The part of the storage engine the composition root drives and its services use. */
export type NodeStorage = StreamStorage & RedactionStorage & ScavengeStorage & Pick<Engine, 'close' | 'onFatal' | 'stats' | 'mergeIndexes' | 'unfollow' | 'scavengeAccess' | 'logBytes' | 'replicaAppender'>;

/** The scavenge options the storage scavenger takes, besides the storage it works on. */
export interface ScavengerSettings {
  indexPath: string;
  /** --scavenge-backend-page-size, in bytes. */
  pageSizeBytes: number;
  /** --scavenge-backend-cache-size, in bytes. */
  cacheSizeBytes: number;
  /** --scavenge-hash-users-cache-capacity. */
  hashUsersCacheCapacity: number;
  logger: Logger;
}

export type OpenScavenger = (storage: NodeStorage, settings: ScavengerSettings) => Scavenger;

export type OpenStorageOptions = EngineOptions & { logger: Logger };

export type OpenStorage = (options: OpenStorageOptions) => Promise<NodeStorage>;
