/**
 * Where projections are kept: the registry `$projections-$all` ($ProjectionsInitialized, then
 * $ProjectionCreated and $ProjectionDeleted with the name as data) and one `$projections-{name}`
 * stream per projection whose last `$ProjectionUpdated` event is its definition.
 *
 * A deleted projection's last epoch is kept in its $ProjectionDeleted event's metadata: a new
 * projection of the same name starts after it, so that neither the checkpoints nor the emitted
 * events of the deleted one, which may outlive it, are ever taken for its own.
 */
import { ExpectedVersion } from '../../storage/streams/stream-metadata.js';
import type { Engine } from '../../storage/engine.js';
import type { ProjectionDefinition } from './projection-config.js';
import { definitionStreamOf, EventTypes, REGISTRY_STREAM } from './streams.js';

export type StoreStorage = Pick<Engine, 'append' | 'readStreamForward' | 'readStreamBackward' | 'deleteStream'>;

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const newEvent = (eventType: string, data: Buffer, isJson: boolean, metadata = Buffer.alloc(0)) => ({ eventId: crypto.randomUUID(), eventType, data, metadata, isJson });

/** The epoch a $ProjectionDeleted event's metadata names, if any. */
function retiredEpochOf(metadata: Buffer): number | undefined {
  if (metadata.length === 0) return undefined;
  try {
    const { epoch } = JSON.parse(metadata.toString('utf8')) as { epoch?: unknown };
    return typeof epoch === 'number' && Number.isSafeInteger(epoch) && epoch >= 0 ? epoch : undefined;
  } catch {
    return undefined;
  }
}

export class ProjectionStore {
  constructor(private readonly storage: StoreStorage) {}

  /**
   * The names in the registry, whether it was ever initialized, and for each name that was deleted
   * the highest epoch a projection of that name had.
   */
  registry(): { initialized: boolean; names: string[]; retiredEpochs: Map<string, number> } {
    const names = new Set<string>();
    const retiredEpochs = new Map<string, number>();
    let initialized = false;
    for (let from = 0; ;) {
      const page = this.storage.readStreamForward(REGISTRY_STREAM, from, 1000);
      for (const event of page.events) {
        const name = event.data.toString('utf8');
        if (event.eventType === EventTypes.initialized) initialized = true;
        else if (event.eventType === EventTypes.created) names.add(name);
        else if (event.eventType === EventTypes.deleted) {
          names.delete(name);
          const epoch = retiredEpochOf(event.metadata);
          if (epoch !== undefined) retiredEpochs.set(name, Math.max(epoch, retiredEpochs.get(name) ?? 0));
        }
      }
      if (page.isEndOfStream || page.events.length === 0) break;
      from = page.nextEventNumber;
    }
    return { initialized, names: [...names], retiredEpochs };
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

  /** `epoch`: the deleted projection's last one. */
  async delete(name: string, epoch: number): Promise<void> {
    const metadata = json({ epoch });
    await this.storage.append(REGISTRY_STREAM, ExpectedVersion.any, [newEvent(EventTypes.deleted, Buffer.from(name), false, metadata)]);
    await this.deleteQuietly(definitionStreamOf(name));
  }

  /** Soft-deletes a stream if it exists, so that a projection of the same name may be created again. */
  async deleteQuietly(streamName: string): Promise<void> {
    const page = this.storage.readStreamBackward(streamName, -1, 1);
    if (page.status !== 'success' || page.lastEventNumber < 0) return;
    await this.storage.deleteStream(streamName, ExpectedVersion.any, false);
  }
}
