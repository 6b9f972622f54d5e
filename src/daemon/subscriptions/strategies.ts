/**
 * Which consumer may take which message (namedConsumerStrategy):
 *  - RoundRobin: any consumer takes the next messages; consumers asking in turn share them.
 *  - DispatchToSingle: the consumer that joined first takes everything while it is there; the
 *    next one takes over when it leaves.
 *  - Pinned: messages are pinned to a consumer by the hash of their stream (the link's target
 *    stream, for a `$ce-` style stream of links), so one consumer owns each stream at a time.
 *  - PinnedByCorrelation: as Pinned, by the `$correlationId` of the event's metadata (the stream
 *    when there is none).
 * A pinned bucket goes to the consumer holding the fewest buckets when it is first needed, and
 * is given out again when its owner leaves.
 */
import { streamHashLow } from '../../storage/index/stream-hash.js';
import { parseLink } from '../services/streams.js';
import type { Consumer } from './consumers.js';
import type { Message } from './message.js';
import type { ConsumerStrategyName } from './settings.js';

export interface ConsumerStrategy {
  /** May `consumer` take `message` now? `live` is every consumer there, in the order they joined. */
  accepts(consumer: Consumer, message: Message, live: readonly Consumer[]): boolean;
  /** `consumer` has left: what it owned goes to the others. */
  left(consumer: Consumer): void;
}

const LINK_EVENT_TYPE = '$>';
/** Buckets of pinned messages: streams that share a bucket share a consumer. */
const PINNED_BUCKETS = 1024;

const roundRobin: ConsumerStrategy = { accepts: () => true, left: () => undefined };

const dispatchToSingle: ConsumerStrategy = {
  accepts: (consumer, _message, live) => live[0] === consumer,
  left: () => undefined,
};

function streamKey(message: Message): string {
  const { record } = message;
  if (record.eventType !== LINK_EVENT_TYPE) return record.streamName;
  return parseLink(record.data.toString('utf8'))?.streamName ?? record.streamName;
}

const CORRELATION = /"\$correlationId"\s*:\s*"((?:[^"\\]|\\.)*)"/;

function correlationKey(message: Message): string {
  const metadata = message.record.metadata;
  const found = metadata.length > 0 ? CORRELATION.exec(metadata.toString('utf8')) : null;
  return found === null ? streamKey(message) : found[1];
}

class Pinned implements ConsumerStrategy {
  private readonly owners = new Map<number, Consumer>();
  private readonly counts = new Map<Consumer, number>();

  constructor(private readonly keyOf: (message: Message) => string) {}

  accepts(consumer: Consumer, message: Message, live: readonly Consumer[]): boolean {
    const bucket = streamHashLow(this.keyOf(message)) % PINNED_BUCKETS;
    let owner = this.owners.get(bucket);
    if (owner === undefined || !live.includes(owner)) {
      if (owner !== undefined) this.left(owner);
      owner = this.leastLoaded(consumer, live);
      this.owners.set(bucket, owner);
      this.counts.set(owner, (this.counts.get(owner) ?? 0) + 1);
    }
    return owner === consumer;
  }

  left(consumer: Consumer): void {
    if (!this.counts.delete(consumer)) return;
    for (const [bucket, owner] of this.owners) if (owner === consumer) this.owners.delete(bucket);
  }

  private leastLoaded(asking: Consumer, live: readonly Consumer[]): Consumer {
    let best = asking;
    let bestCount = this.counts.get(asking) ?? 0;
    for (const candidate of live) {
      const count = this.counts.get(candidate) ?? 0;
      if (count < bestCount) {
        best = candidate;
        bestCount = count;
      }
    }
    return best;
  }
}

export function strategyFor(name: ConsumerStrategyName): ConsumerStrategy {
  switch (name) {
    case 'RoundRobin': return roundRobin;
    case 'DispatchToSingle': return dispatchToSingle;
    case 'Pinned': return new Pinned(streamKey);
    case 'PinnedByCorrelation': return new Pinned(correlationKey);
  }
}
