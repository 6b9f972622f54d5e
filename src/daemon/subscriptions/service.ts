/**
 * The persistent subscriptions service: the groups of every stream, their definitions kept in
 * the config stream, and what the HTTP routes may do with them. It follows the log as a consumer
 * (told after each commit) to wake the consumers waiting on a stream, and ticks on a timer for
 * message timeouts and timed checkpoints. It knows nothing of HTTP; the clock is injected so
 * tests can move time.
 */
import { ChangeQueue } from '../../common/change-queue.js';
import type { Logger } from '../../common/logger.js';
import { Errors } from '../../common/errors.js';
import type { ConsumerOptions, LogConsumer } from '../../storage/read/log-consumers.js';
import type { AllPage } from '../../storage/read/reader.js';
import { STREAM_NAME_BYTES_MAX } from '../../storage/streams/request-checks.js';
import type { Principal, StreamAccess } from '../services/stream-access.js';
import type { SubscriptionGroupFields } from '../services/stats.js';
import { definitionKey, type GroupDefinition } from './config-format.js';
import { ConfigStore } from './config-store.js';
import type { Consumer, ConsumerIdentity } from './consumers.js';
import { SubscriptionGroup, type NackAction } from './group.js';
import type { Message } from './message.js';
import { checkpointStreamOf, groupKey } from './names.js';
import { settingsOf, type SubscriptionSettings } from './settings.js';
import { readOffLoop } from '../../storage/disk/cold-reads.js';
import type { SystemStreams } from './system-streams.js';

/** How often timeouts and timed checkpoints are looked at. */
export const TICK_INTERVAL_MS = 100;

export interface SubscriptionsOptions {
  system: SystemStreams;
  access: StreamAccess;
  follow: (options: ConsumerOptions) => LogConsumer;
  logger: Logger;
  now?: () => number;
  /** 0: no timer; the owner calls `tick()` (tests with their own clock). */
  tickIntervalMs?: number;
}

export interface Delivery {
  group: SubscriptionGroup;
  messages: Message[];
}

export class SubscriptionsService {
  /**
   * The groups by stream, then by group name. A group is the (stream, group) pair: the names are
   * never joined into one key, as any separator may occur in either name.
   */
  private readonly groups = new Map<string, Map<string, SubscriptionGroup>>();
  private readonly config: ConfigStore;
  /**
   * Creates, updates and deletes of one group, by `groupOperationKey`, run one after the other. An
   * update stops the group and waits for its checkpoint before it replaces it: a second update or a
   * delete meanwhile would work on the old group, add a second one or undo the delete.
   */
  private readonly operations = new ChangeQueue();
  /** The service's clock, in ms. */
  readonly now: () => number;
  private consumer: LogConsumer | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: SubscriptionsOptions) {
    this.config = new ConfigStore(options.system, options.logger);
    this.now = options.now ?? Date.now;
  }

  /** Loads the groups from the config stream, each from its checkpoint, and starts following the log. */
  start(): void {
    for (const definition of this.config.load()) this.add(definition, this.loadCheckpoint(definition));
    const interval = this.options.tickIntervalMs ?? TICK_INTERVAL_MS;
    if (interval > 0) {
      this.timer = setInterval(() => this.tick(), interval);
      this.timer.unref();
    }
  }

  private loadCheckpoint(definition: GroupDefinition): number {
    const streamName = checkpointStreamOf(definition.stream, definition.group);
    const read = this.options.system.readLast(streamName);
    if (read.status === 'success' && read.event) {
      const value = checkpointValueOf(read.event.event.data.toString('utf8'));
      if (value !== undefined) return value;
      // Only `$admins` can write there; the group starts over rather than the node not starting.
      this.options.logger.error({ stream: streamName }, 'the last checkpoint is not a position; the group starts from its startFrom');
    }
    return this.startOf(definition);
  }

  /** The checkpoint a new group starts from: before startFrom, or the stream's last event for -1. */
  private startOf({ stream, settings }: GroupDefinition): number {
    return settings.startFrom === -1 ? this.options.system.lastEventNumber(stream) : settings.startFrom - 1;
  }

  private context() {
    return { system: this.options.system, now: this.now, logger: this.options.logger };
  }

  private add(definition: GroupDefinition, checkpoint: number): SubscriptionGroup {
    // The log is followed from the first group on: a node without groups reads nothing for them.
    this.consumer ??= this.options.follow({ name: 'persistent-subscriptions', handle: (page) => this.committed(page), wanted: () => this.groups.size > 0 });
    const group = new SubscriptionGroup(definition, this.context(), checkpoint);
    group.appended(this.options.system.lastEventNumber(definition.stream));
    let ofStream = this.groups.get(definition.stream);
    if (ofStream === undefined) {
      ofStream = new Map();
      this.groups.set(definition.stream, ofStream);
    }
    ofStream.set(definition.group, group);
    return group;
  }

  private remove(group: SubscriptionGroup): void {
    const { stream, group: name } = group.definition;
    const ofStream = this.groups.get(stream);
    if (ofStream?.get(name) !== group) return;
    ofStream.delete(name);
    if (ofStream.size === 0) this.groups.delete(stream);
  }

  private definitions(): GroupDefinition[] {
    return this.list().map((group) => group.definition);
  }

  private find(stream: string, group: string): SubscriptionGroup | undefined {
    return this.groups.get(stream)?.get(group);
  }

  /** The group, or SVCDB_ERR_SUBSCRIPTION_NOT_FOUND. */
  get(stream: string, group: string): SubscriptionGroup {
    // Not a missing group: advising to create it would send the client to a refused PUT.
    if (stream === '$all') throw Errors.subscriptionParameterInvalid.create(ALL_NOT_SERVED);
    const found = this.find(stream, group);
    if (found === undefined) throw Errors.subscriptionNotFound.create(stream, group);
    return found;
  }

  /**
   * The groups `principal` may see: those of streams it may read. For one stream, a caller who
   * may not read it is refused (401) before the groups are looked at, so it learns nothing of them.
   */
  listReadable(principal: Principal | undefined, stream?: string): SubscriptionGroup[] {
    if (stream !== undefined) {
      this.options.access.check(principal, 'read', stream);
      return this.list(stream);
    }
    const readable = new Map<string, boolean>();
    return this.list().filter(({ definition }) => {
      let may = readable.get(definition.stream);
      if (may === undefined) {
        may = this.mayRead(principal, definition.stream);
        readable.set(definition.stream, may);
      }
      return may;
    });
  }

  /** The group, for a caller who may read its stream (401 otherwise, whether or not it exists). */
  getReadable(principal: Principal | undefined, stream: string, group: string): SubscriptionGroup {
    this.options.access.check(principal, 'read', stream);
    return this.get(stream, group);
  }

  private mayRead(principal: Principal | undefined, stream: string): boolean {
    try {
      this.options.access.check(principal, 'read', stream);
      return true;
    } catch {
      return false;
    }
  }

  list(stream?: string): SubscriptionGroup[] {
    if (stream !== undefined) return [...(this.groups.get(stream)?.values() ?? [])];
    return [...this.groups.values()].flatMap((ofStream) => [...ofStream.values()]);
  }

  private serialised(stream: string, group: string, operation: () => Promise<void>): Promise<void> {
    return this.operations.run(definitionKey(stream, group), operation);
  }

  create(principal: Principal | undefined, stream: string, group: string, body: unknown): Promise<void> {
    return this.serialised(stream, group, () => this.createNow(principal, stream, group, body));
  }

  private async createNow(principal: Principal | undefined, stream: string, group: string, body: unknown): Promise<void> {
    checkNames(stream, group);
    const settings = settingsOf(body);
    if (this.find(stream, group) !== undefined) throw Errors.subscriptionExists.create(stream, group);
    this.checkOwnStreamsFree(stream, group);
    const definition = { stream, group, settings };
    const checkpoint = this.startOf(definition);
    const created = this.add(definition, checkpoint);
    try {
      await this.config.put(definition, updatedByOf(principal), this.definitions());
      // A group from the end of its stream must not move on to a later end after a restart,
      // even when its stream does not exist yet (its checkpoint is then -1).
      if (settings.startFrom === -1) await created.forceCheckpoint(checkpoint);
    } catch (error) {
      this.remove(created);
      throw error;
    }
  }

  /**
   * The group's checkpoint and parked streams are named `{stream}::{group}`, as the wire note
   * has them, so `a::b`/`c` and `a`/`b::c` would share them (and their name in stats). The
   * second of two such groups is refused rather than given the other's checkpoints.
   */
  private checkOwnStreamsFree(stream: string, group: string): void {
    const checkpointStream = checkpointStreamOf(stream, group);
    const other = this.list().find((existing) => existing.checkpointStream === checkpointStream);
    if (other === undefined) return;
    const { stream: otherStream, group: otherGroup } = other.definition;
    throw Errors.subscriptionParameterInvalid.create(
      `group ${group} on stream ${stream} would share its checkpoint and parked streams (${checkpointStream}) with group ${otherGroup} on stream ${otherStream}; choose another group name`,
    );
  }

  /**
   * New settings for a live group: it is reset, as the reference does it. Its consumers are
   * dropped and every message they had checked out is released; the group starts again from
   * what it has handled, so nothing is lost (a message may come again).
   */
  update(principal: Principal | undefined, stream: string, group: string, body: unknown): Promise<void> {
    return this.serialised(stream, group, () => this.updateNow(principal, stream, group, body));
  }

  private async updateNow(principal: Principal | undefined, stream: string, group: string, body: unknown): Promise<void> {
    const current = this.get(stream, group);
    const settings: SubscriptionSettings = settingsOf(body, current.settings);
    await current.stop();
    this.remove(current);
    const next = this.add({ stream, group, settings }, current.lastCheckpoint);
    await this.config.put(next.definition, updatedByOf(principal), this.definitions());
    next.appended(next.lastKnownEventNumber);
  }

  /** Removes the group; its checkpoint and parked streams are deleted with it. */
  delete(principal: Principal | undefined, stream: string, group: string): Promise<void> {
    return this.serialised(stream, group, () => this.deleteNow(principal, stream, group));
  }

  private async deleteNow(principal: Principal | undefined, stream: string, group: string): Promise<void> {
    const found = this.get(stream, group);
    this.remove(found);
    await found.stop(false);
    await this.config.delete(stream, group, updatedByOf(principal), this.definitions());
    await this.options.system.delete(found.checkpointStream);
    await this.options.system.delete(found.parked.streamName);
  }

  /** Reads the group's stream ahead off the event loop, so that consuming from it never waits for the disk. */
  readAhead(stream: string, groupName: string): Promise<void> {
    const group = this.get(stream, groupName);
    return readOffLoop(() => group.readAhead());
  }

  /** The caller's messages: up to `count`, checked out to it; none when nothing is there. */
  consume(principal: Principal | undefined, stream: string, groupName: string, identity: ConsumerIdentity, count: number): Delivery & { consumer: Consumer } {
    const group = this.get(stream, groupName);
    this.options.access.check(principal, 'read', stream);
    const consumer = group.consumer(identity);
    return { group, consumer, messages: group.take(consumer, count) };
  }

  ack(principal: Principal | undefined, stream: string, groupName: string, ids: readonly string[]): void {
    const group = this.get(stream, groupName);
    this.options.access.check(principal, 'read', stream);
    group.ack(ids);
  }

  /** Resolves once the messages it parks are in the parked stream. */
  async nack(principal: Principal | undefined, stream: string, groupName: string, ids: readonly string[], action: NackAction, identity?: ConsumerIdentity): Promise<void> {
    const group = this.get(stream, groupName);
    this.options.access.check(principal, 'read', stream);
    await group.nack(ids, action, identity && group.consumers.get(identity.key));
  }

  replayParked(stream: string, groupName: string, stopAt: number | undefined): number {
    return this.get(stream, groupName).replayParked(stopAt);
  }

  /** Per group figures for /stats and /metrics, by `{stream}::{group}`. */
  stats(): Record<string, SubscriptionGroupFields> {
    const fields: Record<string, SubscriptionGroupFields> = {};
    for (const group of this.list()) {
      fields[groupKey(group.definition.stream, group.definition.group)] = {
        inFlight: group.inFlightCount,
        parked: group.parked.count(),
        processedRate: group.measure().averageItemsPerSecond,
        totalItemsProcessed: group.totalItemsProcessed,
        lag: Math.max(0, group.lastKnownEventNumber - group.handledThrough()),
        connections: group.consumers.size,
      };
    }
    return fields;
  }

  /** Message timeouts, idle consumers and timed checkpoints of every group. */
  tick(): void {
    for (const group of this.list()) group.tick();
  }

  private committed(page: AllPage): void {
    for (const event of page.events) {
      const groups = this.groups.get(event.streamName);
      if (groups === undefined) continue;
      for (const group of groups.values()) group.appended(event.eventNumber);
    }
  }

  /** Stops following the log and every group, writing each group's checkpoint. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.consumer?.stop();
    await Promise.all(this.list().map((group) => group.stop()));
  }
}

/** A checkpoint's data: the position as a JSON string (`"5"`); undefined for anything else. */
function checkpointValueOf(text: string): number | undefined {
  try {
    const value = Number(JSON.parse(text));
    return Number.isSafeInteger(value) && value >= -1 ? value : undefined;
  } catch {
    return undefined;
  }
}

const ALL_NOT_SERVED = 'subscriptions to $all are not served over HTTP; subscribe to a stream';

function updatedByOf(principal: Principal | undefined): string {
  return principal?.name ?? '$system';
}

function checkNames(stream: string, group: string): void {
  if (stream === '$all') throw Errors.subscriptionParameterInvalid.create(ALL_NOT_SERVED);
  if (group.trim() === '') throw Errors.subscriptionParameterInvalid.create('the group name must not be empty');
  // The group's own streams are named after it, and must be valid stream names too.
  if (Buffer.byteLength(checkpointStreamOf(stream, group)) > STREAM_NAME_BYTES_MAX) {
    throw Errors.subscriptionParameterInvalid.create(`the stream and group names are too long together: the group's checkpoint stream name would exceed ${STREAM_NAME_BYTES_MAX} bytes`);
  }
}
