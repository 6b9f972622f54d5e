/**
 * Group definitions, kept durable in `$persistentSubscriptionConfig`. Two kinds of event, both of
 * type `$PersistentConfig`:
 * - a whole set (`{version, updated, updatedBy, maxCount, entries}`), the format the config
 *   stream always had, so data directories written before changes were kept one by one load as
 *   they are;
 * - one change (`{version, updated, updatedBy, change: 'put'|'delete', entry}`).
 * Each create, update or delete appends its change only; the whole set is written again once the
 * changes written since the last set outweigh it, and the stream is then truncated (`$tb`) before
 * it. So N changes cost O(N) bytes of log (the sets' sizes at least double from one to the next),
 * and a start reads the last set and the changes after it. Writes run one at a time, in the order
 * they were made, so an older change never lands after a newer one.
 */
import { Errors } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { readConfig, type ConfigChange, type GroupDefinition, type StoredConfig, type StoredEntry } from './config-format.js';
import { CONFIG_EVENT_TYPE, CONFIG_STREAM } from './names.js';
import type { SystemStreams } from './system-streams.js';

const CONFIG_VERSION = '3';
/** Kept in the whole set's `maxCount` field, which the format carries; `$tb` bounds the stream now. */
const CONFIG_MAX_COUNT = 10;
/** Changes are written one by one at least until they add up to this much, however small the set. */
const CHANGES_BYTES_MIN = 64 * 1024;

export class ConfigStore {
  /**
   * Bytes of the changes written since the last whole set, and of that set. Undefined until this
   * process wrote a set: the first write writes one, so a stream still bounded by the former
   * `$maxCount` (which would expire a set behind the changes after it) is bounded by `$tb` from then on.
   */
  private changesBytes = 0;
  private setBytes: number | undefined;
  private writing: Promise<unknown> = Promise.resolve();

  constructor(private readonly system: SystemStreams, private readonly logger: Logger) {}

  /** The definitions the stream holds now: its last whole set with the changes after it applied. */
  load(): GroupDefinition[] {
    return readConfig(this.system, this.logger);
  }

  /** Writes that `definition` was created or changed; `all` is every definition after the change. */
  put(definition: GroupDefinition, updatedBy: string, all: readonly GroupDefinition[]): Promise<void> {
    return this.write({ change: 'put', entry: entryOf(definition) }, updatedBy, all);
  }

  /** Writes that the group was deleted; `all` is every definition after the delete. */
  delete(stream: string, group: string, updatedBy: string, all: readonly GroupDefinition[]): Promise<void> {
    return this.write({ change: 'delete', entry: { stream, group } }, updatedBy, all);
  }

  /** `all` is taken when the change is made, so a set written later holds no change made after it. */
  private write(change: ConfigChange, updatedBy: string, all: readonly GroupDefinition[]): Promise<void> {
    const write = this.writing.then(async () => {
      const header = { version: CONFIG_VERSION, updated: new Date().toISOString(), updatedBy };
      const changeData = JSON.stringify({ ...header, ...change });
      const changeBytes = Buffer.byteLength(changeData);
      if (this.setBytes !== undefined && this.changesBytes + changeBytes < Math.max(this.setBytes, CHANGES_BYTES_MIN)) {
        await this.system.append(CONFIG_STREAM, [{ eventType: CONFIG_EVENT_TYPE, data: changeData }]);
        this.changesBytes += changeBytes;
        return;
      }
      const setData = JSON.stringify({ ...header, maxCount: CONFIG_MAX_COUNT, entries: all.map(entryOf) } satisfies StoredConfig);
      try {
        await this.writeSet(setData);
      } catch (error) {
        // A set larger than a chunk cannot be appended: the change is written alone, and the set
        // is tried again once the changes since outweigh it.
        if (!Errors.appendTooLarge.is(error)) throw error;
        await this.system.append(CONFIG_STREAM, [{ eventType: CONFIG_EVENT_TYPE, data: changeData }]);
        this.setBytes = Buffer.byteLength(setData);
        this.changesBytes = changeBytes;
      }
    });
    // A failed write fails its caller; the next one still runs.
    this.writing = write.catch(() => undefined);
    return write;
  }

  /** Appends the whole set, then truncates the stream before it: what came before is superseded. */
  private async writeSet(data: string): Promise<void> {
    const result = await this.system.append(CONFIG_STREAM, [{ eventType: CONFIG_EVENT_TYPE, data }]);
    this.changesBytes = 0;
    // A crash or a failure here leaves the older events readable: a start still takes the last set.
    try {
      await this.system.writeMetadata(CONFIG_STREAM, { $tb: result.lastEventNumber });
    } catch (error) {
      // The change is durable in the set. Until `$tb` is written a former `$maxCount` may still
      // bound the stream, so the next change writes a set (and `$tb`) again.
      this.logger.warn({ err: error, stream: CONFIG_STREAM }, 'could not truncate the subscription config before its last set; the next change writes the set again');
      this.setBytes = undefined;
      return;
    }
    this.setBytes = Buffer.byteLength(data);
  }
}

function entryOf({ stream, group, settings }: GroupDefinition): StoredEntry {
  return { stream, group, ...settings };
}
