/**
 * Opens the storage scavenger of a node on its storage, with the node's scavenge options.
 */
import { Errors } from '../../common/errors.js';
import type { Scavenger } from '../../storage/scavenge/types.js';
import type { NodeStorage, ScavengerSettings } from '../daemon.js';

export function openNodeScavenger(_storage: NodeStorage, _settings: ScavengerSettings): Scavenger {
  throw Errors.internal.create('scavenger');
}
