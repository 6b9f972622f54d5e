/**
 * The options of a running node, as the composition root consumes them. They are declared and
 * checked in src/common/options (one schema for flags, SVC_* variables and the --config file);
 * this module only hands the daemon's parts their share.
 */
import { loadOptions, type LoadedOptions, type RawValue } from '../common/options/load.js';
import type { NodeOptions, OptionKey } from '../common/options/schema.js';
import type { EngineOptions } from '../storage/engine-options.js';

export type { LoadedOptions } from '../common/options/load.js';
export type DaemonOptions = NodeOptions;

/**
 * Options from given values and defaults only (no environment, no config file unless `config`
 * is given): the way tests and embedders build a node's options.
 */
export function daemonOptions(values: Partial<Record<OptionKey, RawValue>>, cwd: string): LoadedOptions {
  return loadOptions({ flags: values, env: {}, cwd });
}

/** The storage engine's share of the options. */
export function engineOptionsOf(options: NodeOptions): Omit<EngineOptions, 'logger'> {
  return {
    dbPath: options.db,
    indexPath: options.index,
    chunkSizeBytes: options.chunkSize,
    memTableEntriesMax: options.maxMemTableSize,
    streamInfoCacheCapacity: options.streamInfoCacheCapacity,
    existenceFilterSizeBytes: options.streamExistenceFilterSize,
    cachedChunksMax: options.cachedChunks,
    recentEventIdsMax: options.idempotencyCacheCapacity,
    verifyChunks: options.verifyChunks,
    replica: options.replicaOf !== '',
  };
}
