/**
 * Opens the storage scavenger of a node on its storage, with the node's scavenge options:
 * `<index>/scavenging/scavenging.db` with the backend page and cache sizes, and the hash-users
 * cache capacity.
 */
import { join } from 'node:path';
import { openScavenger } from '../../storage/maintenance/scavenge/scavenger.js';
import type { Scavenger } from '../../storage/maintenance/scavenge/types.js';
import { IndexPath } from '../../storage/layout.js';
import type { NodeStorage, ScavengerSettings } from '../node-storage.js';

export function openNodeScavenger(storage: NodeStorage, settings: ScavengerSettings): Scavenger {
  return openScavenger(storage, {
    path: join(settings.indexPath, IndexPath.scavengeState),
    pageSizeBytes: settings.pageSizeBytes,
    cacheSizeBytes: settings.cacheSizeBytes,
    hashUsersCacheCapacity: settings.hashUsersCacheCapacity,
    logger: settings.logger,
  });
}
