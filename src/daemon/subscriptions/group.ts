/**
 * One subscription group: the messages of its stream, read ahead into a buffer, checked out to
 * consumers, and followed until each is handled (acknowledged, skipped or parked). The states of
 * a message are the reference's: delivered → acknowledged; delivered → retried (no reply within
 * messageTimeoutMilliseconds, or a nack with Retry) → parked once retried maxRetryCount times;
 * delivered → parked (nack with Park). Delivery is at least once: the checkpoint says every
 * message up to it was handled, and a message above it that was not is delivered again after a
 * restart.
 */
import type { Logger } from '../../common/logger.js';
import { DELETED_EVENT_NUMBER } from '../../storage/streams/stream-metadata.js';
import { Consumers, CONSUMER_IDLE_MS_MIN, type Consumer, type ConsumerIdentity } from './consumers.js';
import type { GroupDefinition } from './config-format.js';
import { messageOf, type Message } from './message.js';
import { CHECKPOINT_EVENT_TYPE, checkpointStreamOf } from './names.js';
import { ParkedMessages } from './parking.js';
import { strategyFor, type ConsumerStrategy } from './strategies.js';
import type { SystemStreams } from './system-streams.js';

export type NackAction = 'park' | 'retry' | 'skip' | 'stop';

export interface GroupContext {
  system: SystemStreams;
  now: () => number;
  logger: Logger;
}

interface InFlight {
  message: Message;
  consumer: Consumer;
  deadlineMs: number;
}

export class SubscriptionGroup {
  readonly consumers: Consumers;
  readonly parked: ParkedMessages;
  readonly checkpointStream: string;
  private readonly strategy: ConsumerStrategy;
  /** The next event number to read from the stream. */
  private readFrom: number;
  private readonly buffer: Message[] = [];
  /** Messages of the stream to deliver again, in event order: they go before the replays and the buffer. */
  private readonly retries: Message[] = [];
  /** Parked messages handed back by a replay, in parked order: after the retries, before the buffer. */
  private readonly replays: Message[] = [];
  private readonly inFlight = new Map<string, InFlight>();
  /** Event numbers read and not yet handled: the checkpoint stays below the smallest. */
  private readonly pending = new Set<number>();
  private checkpointed: number;
  private handledSinceCheckpoint = 0;
  private lastCheckpointAtMs: number;
  private checkpointWrite: Promise<void> | undefined;
  private checkpointNext: Promise<void> | undefined;
  private readonly waiters = new Set<() => void>();
  /** Parked copies being written: a stop waits for them. */
  private readonly parkWrites = new Set<Promise<void>>();
  private stopped = false;
  totalItemsProcessed = 0;
  lastProcessedEventNumber = -1;
  lastKnownEventNumber = -1;
  private processedAtMeasurement = 0;
  private measuredAtMs: number;
  private rate = 0;

  /** `checkpoint`: every event up to it was handled; the group reads on from the next one. */
  constructor(readonly definition: GroupDefinition, private readonly context: GroupContext, checkpoint: number) {
    const { stream, group, settings } = definition;
    this.consumers = new Consumers(Math.max(settings.messageTimeoutMilliseconds, CONSUMER_IDLE_MS_MIN));
    this.parked = new ParkedMessages(context.system, stream, group, context.logger);
    this.checkpointStream = checkpointStreamOf(stream, group);
    this.strategy = strategyFor(settings.namedConsumerStrategy);
    this.readFrom = checkpoint + 1;
    this.checkpointed = checkpoint;
    this.lastCheckpointAtMs = context.now();
    this.measuredAtMs = this.lastCheckpointAtMs;
  }

  get settings() {
    return this.definition.settings;
  }

  get lastCheckpoint(): number {
    return this.checkpointed;
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  get bufferedCount(): number {
    return this.buffer.length;
  }

  get retryCount(): number {
    return this.retries.length + this.replays.length;
  }

  get status(): string {
    if (this.parked.isReplaying) return 'ReplayingParkedMessages';
    return this.readFrom > this.lastKnownEventNumber ? 'Live' : 'Behind';
  }

  /** The consumer of `identity`; a new one joins (SVCDB_ERR_SUBSCRIPTION_FULL past maxSubscriberCount). */
  consumer(identity: ConsumerIdentity): Consumer {
    return this.consumers.touch(identity, this.context.now(), this.settings.maxSubscriberCount, this.definition.group);
  }

  /**
   * Checks out up to `count` messages to `consumer`, in delivery order: retries by event number,
   * then replayed parked messages, then the rest of the stream in order.
   */
  take(consumer: Consumer, count: number): Message[] {
    consumer.requestedCount = count;
    if (this.stopped || !this.consumers.isLive(consumer)) return [];
    this.readAhead();
    const live = this.consumers.list();
    const taken: Message[] = [];
    this.takeFrom(this.retries, consumer, count, live, taken);
    this.takeFrom(this.replays, consumer, count, live, taken);
    this.takeFrom(this.buffer, consumer, count, live, taken);
    const timeoutMs = this.settings.messageTimeoutMilliseconds;
    const deadlineMs = timeoutMs === 0 ? Number.POSITIVE_INFINITY : this.context.now() + timeoutMs;
    for (const message of taken) this.inFlight.set(message.id, { message, consumer, deadlineMs });
    consumer.inFlight += taken.length;
    return taken;
  }

  private takeFrom(queue: Message[], consumer: Consumer, count: number, live: readonly Consumer[], taken: Message[]): void {
    let kept = 0;
    let index = 0;
    for (; index < queue.length && taken.length < count; index++) {
      const message = queue[index];
      if (this.isGone(message)) {
        // Handled as skipped: the checkpoint may pass it, as the read ahead passes such events.
        this.pending.delete(message.eventNumber);
        continue;
      }
      // A second event with the id of one in flight waits: ids are what consumers acknowledge.
      if (!this.inFlight.has(message.id) && !taken.some((other) => other.id === message.id) && this.strategy.accepts(consumer, message, live)) {
        taken.push(message);
      } else {
        queue[kept++] = message;
      }
    }
    if (kept === index) return;
    queue.splice(kept, index - kept);
  }

  /**
   * Whether the message's event was deleted or truncated, or expired by the stream's metadata,
   * since it was read ahead: such an event is no longer delivered. A parked message being
   * replayed was read when the replay began.
   */
  private isGone(message: Message): boolean {
    if (message.parkedNumber !== undefined) return false;
    const read = this.context.system.readEvent(this.definition.stream, message.eventNumber);
    return read.status !== 'success' || read.event === undefined;
  }

  /**
   * Reads the stream ahead into the buffer, up to bufferSize messages. Each page read either
   * lands whole or changes nothing, so a read run again after a cold page goes on where it stopped.
   */
  readAhead(): void {
    const { stream, settings } = { stream: this.definition.stream, settings: this.settings };
    while (this.buffer.length < settings.bufferSize) {
      const count = Math.min(settings.readBatchSize, settings.bufferSize - this.buffer.length);
      const page = this.context.system.readForward(stream, this.readFrom, count);
      if (page.status !== 'success') return;
      this.lastKnownEventNumber = Math.max(this.lastKnownEventNumber, page.lastEventNumber);
      for (const { event } of page.events) {
        this.buffer.push(messageOf(event));
        this.pending.add(event.eventNumber);
      }
      // Deleted and truncated events are not returned: the next page starts past them.
      if (page.nextEventNumber > this.readFrom) this.readFrom = page.nextEventNumber;
      if (page.isEndOfStream || page.events.length === 0) return;
    }
  }

  /** Acknowledges the messages of `ids` that are checked out; other ids are ignored. */
  ack(ids: readonly string[]): void {
    for (const id of ids) {
      const flight = this.release(id);
      if (flight === undefined) continue;
      flight.consumer.totalItemsProcessed++;
      this.totalItemsProcessed++;
      this.handled(flight.message);
    }
  }

  /**
   * Resolves once every message this nack parked (with Park, or a Retry past maxRetryCount) is in
   * the parked stream: a replay asked for after the reply replays it.
   */
  nack(ids: readonly string[], action: NackAction, consumer?: Consumer): Promise<void> {
    const parks: Array<Promise<void>> = [];
    for (const id of ids) {
      const flight = this.release(id);
      if (flight === undefined) continue;
      if (action === 'park') parks.push(this.park(flight.message, 'parked by a client (nack with Park)'));
      else if (action === 'skip') this.handled(flight.message);
      else parks.push(this.retry(flight.message));
    }
    if (action === 'stop' && consumer !== undefined) this.drop(consumer);
    return Promise.all(parks).then(() => undefined);
  }

  private release(id: string): InFlight | undefined {
    const flight = this.inFlight.get(id);
    if (flight === undefined) return undefined;
    this.inFlight.delete(id);
    flight.consumer.inFlight--;
    return flight;
  }

  /**
   * Delivers `message` again, or parks it when it was retried maxRetryCount times already;
   * resolves once the parked copy is written (at once for a retry).
   */
  private retry(message: Message): Promise<void> {
    if (message.retryCount >= this.settings.maxRetryCount) {
      return this.park(message, `retried ${message.retryCount} times (maxRetryCount ${this.settings.maxRetryCount})`);
    }
    this.requeue({ ...message, retryCount: message.retryCount + 1 });
    this.wake();
    return Promise.resolve();
  }

  /**
   * Puts a message back for delivery: a message of the stream among the retries by event number,
   * whatever order the nacks and timeouts came in; a replayed parked message among the replays.
   */
  private requeue(message: Message): void {
    if (message.parkedNumber !== undefined) {
      insertOrdered(this.replays, message, message.parkedNumber, (other) => other.parkedNumber ?? 0);
      return;
    }
    insertOrdered(this.retries, message, message.eventNumber, (other) => other.eventNumber);
  }

  /**
   * The message counts as handled once its parked copy is durable; until then it is not lost.
   * Resolves then, or once a failed write has put the message back for delivery.
   */
  private park(message: Message, reason: string): Promise<void> {
    const write = this.parked.park(message, reason).then(
      () => this.handled(message),
      (error: unknown) => {
        this.context.logger.warn({ err: error, stream: this.parked.streamName }, 'parking a message failed; it is delivered again');
        if (!this.stopped) this.requeue(message);
      },
    ).finally(() => this.parkWrites.delete(write));
    this.parkWrites.add(write);
    return write;
  }

  /** Resolves once the parked copies and the checkpoint being written now are written. */
  async settled(): Promise<void> {
    while (this.parkWrites.size > 0) await Promise.all([...this.parkWrites]);
    await (this.checkpointNext ?? this.checkpointWrite);
  }

  private handled(message: Message): void {
    if (message.parkedNumber !== undefined) {
      this.parked.done(message.parkedNumber);
      return;
    }
    this.pending.delete(message.eventNumber);
    this.lastProcessedEventNumber = Math.max(this.lastProcessedEventNumber, message.eventNumber);
    this.handledSinceCheckpoint++;
    if (this.handledSinceCheckpoint >= this.settings.maxCheckPointCount) void this.checkpoint();
  }

  /** Hands the parked messages before `stopAt` back for delivery. */
  replayParked(stopAt: number | undefined): number {
    const messages = this.parked.replay(stopAt);
    for (const message of messages) this.requeue(message);
    if (messages.length > 0) this.wake();
    return messages.length;
  }

  /**
   * The passing of time: consumers idle too long leave, messages past their timeout are retried,
   * and a checkpoint is written when checkPointAfterMilliseconds passed with minCheckPointCount
   * messages handled.
   */
  tick(): void {
    const now = this.context.now();
    for (const consumer of this.consumers.expire(now)) this.strategy.left(consumer);
    const expired: InFlight[] = [];
    for (const flight of this.inFlight.values()) if (flight.deadlineMs <= now) expired.push(flight);
    for (const flight of expired) {
      this.release(flight.message.id);
      // A park this starts is awaited by a stop (parkWrites); no one waits for it here.
      void this.retry(flight.message);
    }
    const { checkPointAfterMilliseconds, minCheckPointCount } = this.settings;
    if (this.handledSinceCheckpoint > 0 && this.handledSinceCheckpoint >= minCheckPointCount
      && now - this.lastCheckpointAtMs >= checkPointAfterMilliseconds) {
      void this.checkpoint();
    }
  }

  /** Every event up to this number was handled. */
  handledThrough(): number {
    return this.checkpointValue();
  }

  private checkpointValue(): number {
    let lowest = this.readFrom;
    for (const eventNumber of this.pending) if (eventNumber < lowest) lowest = eventNumber;
    return lowest - 1;
  }

  /** Writes the checkpoint if it moved; one write at a time, the latest value wins. */
  checkpoint(): Promise<void> {
    // Many messages handled during one write ask for one more write after it, not one each.
    if (this.checkpointWrite !== undefined) {
      this.checkpointNext ??= this.checkpointWrite.then(() => {
        this.checkpointNext = undefined;
        return this.checkpoint();
      });
      return this.checkpointNext;
    }
    const value = this.checkpointValue();
    this.handledSinceCheckpoint = 0;
    this.lastCheckpointAtMs = this.context.now();
    if (value === this.checkpointed) return Promise.resolve();
    const write = this.context.system.append(this.checkpointStream, [{ eventType: CHECKPOINT_EVENT_TYPE, data: JSON.stringify(String(value)) }])
      .then(() => {
        this.checkpointed = Math.max(this.checkpointed, value);
      }, (error: unknown) => {
        this.context.logger.warn({ err: error, stream: this.checkpointStream }, 'writing a checkpoint failed; the next one will try again');
      })
      .finally(() => {
        this.checkpointWrite = undefined;
      });
    this.checkpointWrite = write;
    return write;
  }

  /** Writes `value` as the checkpoint as it is (a new group's start). */
  async forceCheckpoint(value: number): Promise<void> {
    await this.context.system.append(this.checkpointStream, [{ eventType: CHECKPOINT_EVENT_TYPE, data: JSON.stringify(String(value)) }]);
    this.checkpointed = value;
  }

  /** A consumer stops (nack with Stop): it leaves the group, its pinned streams go to others. */
  private drop(consumer: Consumer): void {
    this.consumers.remove(consumer);
    this.strategy.left(consumer);
  }

  /** Events were written to the stream: waiting consumers look again. */
  appended(lastEventNumber: number): void {
    // A hard delete's tombstone is not an event of the stream: nothing is there to be delivered.
    if (lastEventNumber === DELETED_EVENT_NUMBER) return;
    this.lastKnownEventNumber = Math.max(this.lastKnownEventNumber, lastEventNumber);
    this.wake();
  }

  /** Resolves when messages may be there for the taking, or after `timeoutMs`, or on `abort`. */
  waitForMessages(consumer: Consumer, timeoutMs: number, abort?: AbortSignal): Promise<void> {
    if (this.stopped) return Promise.resolve();
    consumer.waiting++;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        abort?.removeEventListener('abort', done);
        this.waiters.delete(done);
        consumer.waiting--;
        consumer.lastSeenMs = this.context.now();
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      abort?.addEventListener('abort', done, { once: true });
      this.waiters.add(done);
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Items acknowledged per second since the previous measurement (at least a second back). */
  measure(): { averageItemsPerSecond: number; countSinceLastMeasurement: number } {
    const now = this.context.now();
    const count = this.totalItemsProcessed - this.processedAtMeasurement;
    if (now - this.measuredAtMs >= 1000) {
      this.rate = Math.round((count / (now - this.measuredAtMs)) * 1000 * 100) / 100;
      this.processedAtMeasurement = this.totalItemsProcessed;
      this.measuredAtMs = now;
    }
    return { averageItemsPerSecond: this.rate, countSinceLastMeasurement: count };
  }

  /**
   * Stops the group (delete, reset, shutdown): waiting consumers are released, the checkpoint is
   * written as far as the handled messages allow (unless the group is being deleted), and
   * nothing more is delivered.
   */
  async stop(writeCheckpoint = true): Promise<void> {
    this.stopped = true;
    this.wake();
    this.parked.abandon();
    // A message being parked is handled once its copy is written: the checkpoint may pass it then.
    await this.settled();
    if (writeCheckpoint) await this.checkpoint();
  }
}

/** Inserts `message` into `queue`, ordered by `key`, after any with the same key. */
function insertOrdered(queue: Message[], message: Message, key: number, keyOf: (message: Message) => number): void {
  let low = 0;
  let high = queue.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keyOf(queue[middle]) <= key) low = middle + 1;
    else high = middle;
  }
  queue.splice(low, 0, message);
}
