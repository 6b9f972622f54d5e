/**
 * Group definitions, kept durable in `$persistentSubscriptionConfig`: each change appends the
 * whole set as one `$PersistentConfig` event (`{version, updated, updatedBy, maxCount,
 * entries}`), so the last event is the truth and a start reads only that. Changes are written one
 * at a time, in the order they were made, so an older set never lands after a newer one.
 */
import type { Logger } from '../../common/logger.js';
import { settingsOf, type SubscriptionSettings } from './settings.js';
import { CONFIG_EVENT_TYPE, CONFIG_STREAM } from './names.js';
import type { SystemStreams } from './system-streams.js';

export interface GroupDefinition {
  stream: string;
  group: string;
  settings: SubscriptionSettings;
}

interface StoredConfig {
  version: string;
  updated: string;
  updatedBy: string;
  maxCount: number;
  entries: Array<{ stream: string; group: string } & Partial<SubscriptionSettings>>;
}

const CONFIG_VERSION = '2';
/** Only the last definition matters: older ones are kept for a while as history, then expire. */
const CONFIG_MAX_COUNT = 10;

export class ConfigStore {
  /** The config stream's last event number; -1 before the first write. */
  private version = -1;
  private writing: Promise<unknown> = Promise.resolve();

  constructor(private readonly system: SystemStreams, private readonly logger: Logger) {}

  /** The definitions of the last config event; none when the stream has no event. */
  load(): GroupDefinition[] {
    const read = this.system.readLast(CONFIG_STREAM);
    if (read.status !== 'success' || read.event === undefined) return [];
    this.version = read.event.event.eventNumber;
    let stored: Partial<StoredConfig>;
    try {
      stored = JSON.parse(read.event.event.data.toString('utf8')) as Partial<StoredConfig>;
    } catch {
      stored = {};
    }
    // Only `$admins` can write the config stream; a definition that does not read is left out
    // and logged, so the node still starts with every group it can read.
    const definitions: GroupDefinition[] = [];
    for (const entry of Array.isArray(stored.entries) ? stored.entries : []) {
      try {
        const { stream, group, ...settings } = entry;
        if (typeof stream !== 'string' || typeof group !== 'string') throw new TypeError('an entry without stream and group names');
        definitions.push({ stream, group, settings: settingsOf(settings) });
      } catch (error) {
        this.logger.error({ err: error, entry }, 'a subscription group definition cannot be read; the group is not started');
      }
    }
    if (!Array.isArray(stored.entries)) this.logger.error({ stream: CONFIG_STREAM }, 'the last subscription config has no entries; no group is started');
    return definitions;
  }

  /** Writes `definitions` as the new config, after any write in progress. */
  save(definitions: readonly GroupDefinition[], updatedBy: string): Promise<void> {
    const write = this.writing.then(async () => {
      const stored: StoredConfig = {
        version: CONFIG_VERSION, updated: new Date().toISOString(), updatedBy, maxCount: CONFIG_MAX_COUNT,
        entries: definitions.map(({ stream, group, settings }) => ({ stream, group, ...settings })),
      };
      if (this.version < 0) await this.system.writeMetadata(CONFIG_STREAM, { $maxCount: CONFIG_MAX_COUNT });
      const result = await this.system.append(CONFIG_STREAM, [{ eventType: CONFIG_EVENT_TYPE, data: JSON.stringify(stored) }]);
      this.version = result.lastEventNumber;
    });
    // A failed write fails its caller; the next one still runs.
    this.writing = write.catch(() => undefined);
    return write;
  }
}
