/**
 * The consumers of a group. Over HTTP a consumer is whoever sends the requests: the client names
 * itself with `Svc-ConnectionName`, or else is known by its connection (address and port). A
 * consumer joins with its first request and leaves when it has not asked for messages within
 * the idle time (its unacknowledged messages then time out and go to the others).
 */
import { Errors } from '../../common/errors.js';

/** A consumer is gone when it has not asked for messages for this long, at least. */
export const CONSUMER_IDLE_MS_MIN = 10_000;

export interface ConsumerIdentity {
  /** The key a consumer is known by: its connection name, or its address. */
  key: string;
  from: string;
  username: string;
  connectionName: string;
}

export class Consumer {
  lastSeenMs: number;
  inFlight = 0;
  totalItemsProcessed = 0;
  /** The count of its last request: how many it can take at once. */
  requestedCount = 0;
  /** Requests waiting for messages (long polls): a waiting consumer is there. */
  waiting = 0;
  private countAtMeasurement = 0;
  private measuredAtMs: number;
  private rate = 0;

  constructor(readonly identity: ConsumerIdentity, readonly joinedAtMs: number, readonly order: number) {
    this.lastSeenMs = joinedAtMs;
    this.measuredAtMs = joinedAtMs;
  }

  get key(): string {
    return this.identity.key;
  }

  /** Items per second since the previous measurement (at least a second back). */
  measure(nowMs: number): { averageItemsPerSecond: number; countSinceLastMeasurement: number } {
    const count = this.totalItemsProcessed - this.countAtMeasurement;
    const elapsedMs = nowMs - this.measuredAtMs;
    if (elapsedMs >= 1000) {
      this.rate = Math.round((count / elapsedMs) * 1000 * 100) / 100;
      this.countAtMeasurement = this.totalItemsProcessed;
      this.measuredAtMs = nowMs;
    }
    return { averageItemsPerSecond: this.rate, countSinceLastMeasurement: count };
  }
}

export class Consumers {
  private readonly byKey = new Map<string, Consumer>();
  private joined = 0;

  constructor(private readonly idleMs: number) {}

  /** The consumer of `identity`, joining it when new; refused beyond `max` (0: no limit). */
  touch(identity: ConsumerIdentity, nowMs: number, max: number, group: string): Consumer {
    let consumer = this.byKey.get(identity.key);
    if (consumer === undefined) {
      if (max > 0 && this.byKey.size >= max) throw Errors.subscriptionFull.create(group, max);
      consumer = new Consumer(identity, nowMs, this.joined++);
      this.byKey.set(identity.key, consumer);
    }
    consumer.lastSeenMs = nowMs;
    return consumer;
  }

  get(key: string): Consumer | undefined {
    return this.byKey.get(key);
  }

  isLive(consumer: Consumer): boolean {
    return this.byKey.get(consumer.key) === consumer;
  }

  /** Consumers in the order they joined. */
  list(): Consumer[] {
    return [...this.byKey.values()];
  }

  /** Removes the consumers idle past the idle time; returns them. */
  expire(nowMs: number): Consumer[] {
    const gone: Consumer[] = [];
    for (const consumer of this.byKey.values()) {
      if (consumer.waiting === 0 && nowMs - consumer.lastSeenMs > this.idleMs) gone.push(consumer);
    }
    for (const consumer of gone) this.byKey.delete(consumer.key);
    return gone;
  }

  remove(consumer: Consumer): void {
    if (this.isLive(consumer)) this.byKey.delete(consumer.key);
  }

  clear(): void {
    this.byKey.clear();
  }

  get size(): number {
    return this.byKey.size;
  }
}
