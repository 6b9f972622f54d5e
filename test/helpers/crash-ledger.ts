/**
 * What a crash test sent to one stream, and the check of the log against it after a restart:
 * every acknowledged event is there, in order, byte for byte; every event there was sent; and a
 * batch is there whole or not at all. Only the one batch in flight when the node died may be
 * there without an acknowledgement.
 */
/** An event as read back: an EventRecord of the engine, or an entry of a feed. */
export interface ReadEvent {
  eventNumber: number;
  eventId: string;
  eventType: string;
  data: Buffer;
  metadata: Buffer;
}

export interface SentEvent {
  eventId: string;
  eventType: string;
  data: Buffer;
  metadata: Buffer;
}

interface SentBatch {
  firstEventNumber: number;
  events: SentEvent[];
  acknowledged: boolean;
}

/** Problems listed per check, at most; the first ones say what went wrong. */
const PROBLEMS_MAX = 10;

export class StreamLedger {
  /** Events a check found in the log: durable from then on, whatever their acknowledgement. */
  private durable: SentEvent[] = [];
  /** Batches sent since the last check, by their first event number. */
  private sent = new Map<number, SentBatch>();

  constructor(readonly streamName: string) {}

  /** The event number the next append goes to, as of the last check. */
  get durableCount(): number {
    return this.durable.length;
  }

  /** Records a batch before it is sent, so that it is known if the node keeps it unacknowledged. */
  send(firstEventNumber: number, events: SentEvent[]): SentBatch {
    const batch = { firstEventNumber, events, acknowledged: false };
    this.sent.set(firstEventNumber, batch);
    return batch;
  }

  acknowledge(batch: SentBatch): void {
    batch.acknowledged = true;
  }

  get acknowledgedCount(): number {
    let count = 0;
    for (const batch of this.sent.values()) if (batch.acknowledged) count += batch.events.length;
    return count;
  }

  /**
   * Compares the stream as read from the log (`events`, in order) with what was sent and returns
   * the problems; then takes the log as the durable state and forgets the batches.
   */
  check(events: readonly ReadEvent[]): string[] {
    const problems = [...this.numberingProblems(events), ...this.durableProblems(events), ...this.sentProblems(events)];
    this.durable = events.map(({ eventId, eventType, data, metadata }) => ({ eventId, eventType, data, metadata }));
    this.sent.clear();
    return problems.slice(0, PROBLEMS_MAX);
  }

  private numberingProblems(events: readonly ReadEvent[]): string[] {
    const problems: string[] = [];
    events.forEach((event, index) => {
      if (event.eventNumber !== index) problems.push(`${this.streamName}: event ${index} of the read has number ${event.eventNumber}`);
    });
    return problems;
  }

  /** Everything a previous check found is still there, unchanged. */
  private durableProblems(events: readonly ReadEvent[]): string[] {
    const problems: string[] = [];
    this.durable.forEach((expected, eventNumber) => {
      const difference = differenceFrom(events[eventNumber], expected);
      if (difference) problems.push(`${this.streamName}/${eventNumber} found before is now ${difference}`);
    });
    return problems;
  }

  /** Past the durable events, the log holds whole sent batches, and every acknowledged one. */
  private sentProblems(events: readonly ReadEvent[]): string[] {
    const problems: string[] = [];
    let eventNumber = this.durable.length;
    while (eventNumber < events.length) {
      const batch = this.sent.get(eventNumber);
      if (!batch) return [...problems, `${this.streamName}/${eventNumber} (${events[eventNumber].eventId}) was never sent at that number`];
      batch.events.forEach((expected, offset) => {
        const difference = differenceFrom(events[eventNumber + offset], expected);
        if (difference) problems.push(`${this.streamName}/${eventNumber + offset}, event ${offset} of a batch of ${batch.events.length}, is ${difference}`);
      });
      eventNumber += batch.events.length;
    }
    for (const batch of this.sent.values()) {
      if (batch.acknowledged && batch.firstEventNumber + batch.events.length > events.length) {
        problems.push(`${this.streamName}/${batch.firstEventNumber}: an acknowledged batch of ${batch.events.length} is missing (the stream has ${events.length} events)`);
      }
    }
    return problems;
  }
}

/** How `actual` differs from what was sent, or undefined when it is the same, byte for byte. */
function differenceFrom(actual: ReadEvent | undefined, expected: SentEvent): string | undefined {
  if (!actual) return 'missing';
  if (actual.eventId !== expected.eventId) return `another event (id ${actual.eventId}, sent ${expected.eventId})`;
  if (actual.eventType !== expected.eventType) return `of type ${actual.eventType}, sent ${expected.eventType}`;
  if (!actual.data.equals(expected.data)) return `different data (${actual.data.length} bytes, sent ${expected.data.length})`;
  if (!actual.metadata.equals(expected.metadata)) return `different metadata (${actual.metadata.length} bytes, sent ${expected.metadata.length})`;
  return undefined;
}
