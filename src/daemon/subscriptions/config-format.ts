/**
 * What `$persistentSubscriptionConfig` holds and how a start reads it back: the last whole set of
 * definitions (`entries`), then the changes written after it (`change`: `put` or `delete`), in
 * order. A stream written before changes were kept one by one holds only sets; its last set is
 * read as it always was.
 */
import type { Logger } from '../../common/logger.js';
import { settingsOf, type SubscriptionSettings } from './settings.js';
import { CONFIG_STREAM } from './names.js';
import type { SystemStreams } from './system-streams.js';

export interface GroupDefinition {
  stream: string;
  group: string;
  settings: SubscriptionSettings;
}

export type StoredEntry = { stream: string; group: string } & Partial<SubscriptionSettings>;

interface Header {
  version: string;
  updated: string;
  updatedBy: string;
}

export interface StoredConfig extends Header {
  maxCount: number;
  entries: StoredEntry[];
}

export type ConfigChange = { change: 'put'; entry: StoredEntry } | { change: 'delete'; entry: { stream: string; group: string } };

/** Config events read back at a time, going back from the last to the last whole set. */
const READ_BACK_PAGE = 100;

type ConfigEvent = { kind: 'set'; entries: unknown[] } | { kind: 'change'; change: ConfigChange } | { kind: 'unreadable' };

/** One key per (stream, group) pair: JSON quotes both names, so no two pairs share a key. */
export function definitionKey(stream: string, group: string): string {
  return JSON.stringify([stream, group]);
}

function configEventOf(data: string): ConfigEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return { kind: 'unreadable' };
  }
  if (typeof parsed !== 'object' || parsed === null) return { kind: 'unreadable' };
  const stored = parsed as { entries?: unknown; change?: unknown; entry?: unknown };
  if (Array.isArray(stored.entries)) return { kind: 'set', entries: stored.entries };
  if ((stored.change === 'put' || stored.change === 'delete') && typeof stored.entry === 'object' && stored.entry !== null) {
    return { kind: 'change', change: { change: stored.change, entry: stored.entry as StoredEntry } };
  }
  return { kind: 'unreadable' };
}

/** The events from the last whole set (included) to the end, oldest first. */
function eventsSinceLastSet(system: SystemStreams, logger: Logger): ConfigEvent[] {
  const since: ConfigEvent[] = [];
  let from = system.lastEventNumber(CONFIG_STREAM);
  while (from >= 0) {
    const page = system.readBackward(CONFIG_STREAM, from, READ_BACK_PAGE);
    if (page.status !== 'success') break;
    for (const { event } of page.events) {
      const read = configEventOf(event.data.toString('utf8'));
      // Only `$admins` can write the config stream; an event that does not read is passed over.
      if (read.kind === 'unreadable') logger.error({ stream: CONFIG_STREAM, eventNumber: event.eventNumber }, 'a subscription config event cannot be read; it is passed over');
      else since.push(read);
      if (read.kind === 'set') return since.reverse();
    }
    if (page.isEndOfStream || page.events.length === 0) break;
    from = page.nextEventNumber;
  }
  return since.reverse();
}

/** The definition of a stored entry; throws when it does not read. */
function definitionOf(entry: unknown): GroupDefinition {
  if (typeof entry !== 'object' || entry === null) throw new TypeError('an entry that is not an object');
  const { stream, group, ...settings } = entry as StoredEntry;
  if (typeof stream !== 'string' || typeof group !== 'string') throw new TypeError('an entry without stream and group names');
  return { stream, group, settings: settingsOf(settings) };
}

/**
 * The definitions the config stream holds. A definition that does not read is left out and
 * logged, so the node still starts with every group it can read.
 */
export function readConfig(system: SystemStreams, logger: Logger): GroupDefinition[] {
  const definitions = new Map<string, GroupDefinition>();
  const put = (entry: unknown) => {
    try {
      const definition = definitionOf(entry);
      definitions.set(definitionKey(definition.stream, definition.group), definition);
    } catch (error) {
      logger.error({ err: error, entry }, 'a subscription group definition cannot be read; the group is not started');
    }
  };
  for (const read of eventsSinceLastSet(system, logger)) {
    if (read.kind === 'set') {
      definitions.clear();
      for (const entry of read.entries) put(entry);
    } else if (read.kind === 'change' && read.change.change === 'put') {
      put(read.change.entry);
    } else if (read.kind === 'change') {
      definitions.delete(definitionKey(read.change.entry.stream, read.change.entry.group));
    }
  }
  return [...definitions.values()];
}
