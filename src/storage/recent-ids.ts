/**
 * Recently written event ids, for idempotency with expected version "any": the first id of a
 * request is looked up here, and the events that follow it in the stream are compared with the
 * rest (so the answer is always checked against the log).
 *
 * Every event of every write goes in, so the cost per event is what matters. The first id of
 * each write is kept exactly (a whole write sent again is found for certain); the others as a
 * 30-bit number taken from the id, which costs no retained string (a repeat of a later part of
 * a write is found unless another recent id shares those bits, about one chance in 10,000 with
 * a full cache). Each part forgets its oldest entry once full.
 */
const HASH_BITS_SHIFT = 2;

/**
 * A small integer from the first 8 hex digits of a UUID (random in version 4 ids), in either
 * case, without making a string: this runs for every event written.
 */
function idHash(eventId: string): number {
  let hash = 0;
  for (let i = 0; i < 8; i++) {
    const code = eventId.charCodeAt(i) | 0x20;
    hash = (hash << 4) | (code <= 0x39 ? code - 0x30 : code - 0x57);
  }
  return hash >>> HASH_BITS_SHIFT;
}

class Ring<K> {
  readonly entries = new Map<K, number>();
  private readonly order: Array<K | undefined>;
  private next = 0;

  constructor(capacity: number) {
    this.order = new Array<K | undefined>(capacity);
  }

  set(key: K, value: number): void {
    const oldest = this.order[this.next];
    // A key set again since its oldest slot is forgotten a little early: harmless for a cache.
    if (oldest !== undefined) this.entries.delete(oldest);
    this.order[this.next] = key;
    this.next = (this.next + 1) % this.order.length;
    this.entries.set(key, value);
  }
}

export class RecentIds {
  private readonly firstIds: Ring<string>;
  private readonly otherIds: Ring<number>;

  constructor(capacity: number) {
    this.firstIds = new Ring(capacity);
    this.otherIds = new Ring(capacity);
  }

  /** The event number `eventId` may have been written at, if it is remembered. */
  get(eventId: string): number | undefined {
    return this.firstIds.entries.get(eventId.toLowerCase()) ?? this.otherIds.entries.get(idHash(eventId));
  }

  /** Remembers the events of one write, numbered from `firstEventNumber`. */
  add(events: ReadonlyArray<{ eventId: string }>, firstEventNumber: number): void {
    this.firstIds.set(events[0].eventId.toLowerCase(), firstEventNumber);
    for (let i = 1; i < events.length; i++) this.otherIds.set(idHash(events[i].eventId), firstEventNumber + i);
  }

  /** Forgets a write that was refused. */
  forget(events: ReadonlyArray<{ eventId: string }>): void {
    this.firstIds.entries.delete(events[0].eventId.toLowerCase());
    for (let i = 1; i < events.length; i++) this.otherIds.entries.delete(idHash(events[i].eventId));
  }
}
