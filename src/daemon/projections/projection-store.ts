/**
 * Where projections are kept: the registry `$projections-$all` ($ProjectionsInitialized, then
 * $ProjectionCreated and $ProjectionDeleted with the name as data) and one `$projections-{name}`
 * stream per projection whose last `$ProjectionUpdated` event is its definition.
 */
import { ExpectedVersion } from '../../storage/stream-metadata.js';
import type { Engine } from '../../storage/engine.js';
import type { ProjectionDefinition } from './projection-config.js';
import { definitionStreamOf, EventTypes, REGISTRY_STREAM } from './streams.js';

export type StoreStorage = Pick<Engine, 'append' | 'readStreamForward' | 'readStreamBackward' | 'deleteStream'>;

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const newEvent = (eventType: string, data: Buffer, isJson: boolean) => ({ eventId: crypto.randomUUID(), eventType, data, metadata: Buffer.alloc(0), isJson });

export class ProjectionStore {
  constructor(private readonly storage: StoreStorage) {}

  /** The names in the registry, and whether it was ever initialized. */
  registry(): { initialized: boolean; names: string[] } {
    const names = new Set<string>();
    let initialized = false;
    for (let from = 0; ;) {
      const page = this.storage.readStreamForward(REGISTRY_STREAM, from, 1000);
      for (const event of page.events) {
        const name = event.data.toString('utf8');
        if (event.eventType === EventTypes.initialized) initialized = true;
        else if (event.eventType === EventTypes.created) names.add(name);
        else if (event.eventType === EventTypes.deleted) names.delete(name);
      }
      if (page.isEndOfStream || page.events.length === 0) break;
      from = page.nextEventNumber;
    }
    return { initialized, names: [...names] };
  }

  async initialize(): Promise<void> {
    await this.storage.append(REGISTRY_STREAM, ExpectedVersion.any, [newEvent(EventTypes.initialized, json({}), true)]);
  }

  definition(name: string): ProjectionDefinition | undefined {
    const page = this.storage.readStreamBackward(definitionStreamOf(name), -1, 1);
    if (page.status !== 'success' || page.events.length === 0) return undefined;
    try {
      const stored = JSON.parse(page.events[0].data.toString('utf8')) as ProjectionDefinition & { checkpointsDisabled?: boolean };
      return { ...stored, name, checkpointsEnabled: stored.checkpointsDisabled !== true };
    } catch {
      return undefined;
    }
  }

  async create(definition: ProjectionDefinition): Promise<void> {
    await this.save(definition);
    await this.storage.append(REGISTRY_STREAM, ExpectedVersion.any, [newEvent(EventTypes.created, Buffer.from(definition.name), false)]);
  }

  async save(definition: ProjectionDefinition): Promise<void> {
    const { checkpointsEnabled, name: _name, ...rest } = definition;
    await this.storage.append(definitionStreamOf(definition.name), ExpectedVersion.any, [
      newEvent(EventTypes.updated, json({ ...rest, checkpointsDisabled: !checkpointsEnabled }), true),
    ]);
  }

  async delete(name: string): Promise<void> {
    await this.storage.append(REGISTRY_STREAM, ExpectedVersion.any, [newEvent(EventTypes.deleted, Buffer.from(name), false)]);
    await this.deleteQuietly(definitionStreamOf(name));
  }

  /** Soft-deletes a stream if it exists, so that a projection of the same name may be created again. */
  async deleteQuietly(streamName: string): Promise<void> {
    const page = this.storage.readStreamBackward(streamName, -1, 1);
    if (page.status !== 'success' || page.lastEventNumber < 0) return;
    await this.storage.deleteStream(streamName, ExpectedVersion.any, false);
  }
}
