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

const EMPTY = -1;

/**
 * The same ring for the 30-bit hashes, in typed arrays: an open-addressed table (linear probing,
 * deletion by shifting back) that allocates nothing per event. A Map of this size churned by
 * every event written costs the collector more than the lookups themselves.
 */
class HashRing {
  private readonly keys: Int32Array;
  private readonly values: Float64Array;
  private readonly mask: number;
  private readonly shift: number;
  private readonly order: Int32Array;
  private next = 0;

  constructor(capacity: number) {
    let bits = 1;
    while (2 ** bits < capacity * 2) bits++;
    const size = 2 ** bits;
    this.shift = 32 - bits;
    this.keys = new Int32Array(size).fill(EMPTY);
    this.values = new Float64Array(size);
    this.mask = size - 1;
    this.order = new Int32Array(capacity).fill(EMPTY);
  }

  get(key: number): number | undefined {
    for (let slot = this.slotOf(key); ; slot = (slot + 1) & this.mask) {
      const found = this.keys[slot];
      if (found === key) return this.values[slot];
      if (found === EMPTY) return undefined;
    }
  }

  set(key: number, value: number): void {
    const oldest = this.order[this.next];
    // As in Ring: a key set again since its oldest slot is forgotten a little early.
    if (oldest !== EMPTY) this.delete(oldest);
    this.order[this.next] = key;
    this.next = (this.next + 1) % this.order.length;
    let slot = this.slotOf(key);
    while (this.keys[slot] !== EMPTY && this.keys[slot] !== key) slot = (slot + 1) & this.mask;
    this.keys[slot] = key;
    this.values[slot] = value;
  }

  delete(key: number): void {
    let slot = this.slotOf(key);
    for (; this.keys[slot] !== key; slot = (slot + 1) & this.mask) if (this.keys[slot] === EMPTY) return;
    // Shift back the entries after the hole that would no longer be found past it.
    for (let hole = slot, probe = (slot + 1) & this.mask; ; probe = (probe + 1) & this.mask) {
      const moved = this.keys[probe];
      if (moved === EMPTY) {
        this.keys[hole] = EMPTY;
        return;
      }
      const home = this.slotOf(moved);
      // The entry stays unless its home lies cyclically outside (hole, probe].
      if (((probe - home) & this.mask) >= ((probe - hole) & this.mask)) {
        this.keys[hole] = moved;
        this.values[hole] = this.values[probe];
        hole = probe;
      }
    }
  }

  private slotOf(key: number): number {
    // Fibonacci hashing: the top bits of the product depend on every bit of the key, so ids
    // that are not random (sequential ones, say) still spread over the table.
    return Math.imul(key, 0x9e3779b1) >>> this.shift;
  }
}

export class RecentIds {
  private readonly firstIds: Ring<string>;
  private readonly otherIds: HashRing;

  constructor(capacity: number) {
    this.firstIds = new Ring(capacity);
    this.otherIds = new HashRing(capacity);
  }

  /** The event number `eventId` may have been written at, if it is remembered. */
  get(eventId: string): number | undefined {
    return this.firstIds.entries.get(eventId.toLowerCase()) ?? this.otherIds.get(idHash(eventId));
  }

  /** Remembers the events of one write, numbered from `firstEventNumber`. */
  add(events: ReadonlyArray<{ eventId: string }>, firstEventNumber: number): void {
    this.firstIds.set(events[0].eventId.toLowerCase(), firstEventNumber);
    for (let i = 1; i < events.length; i++) this.otherIds.set(idHash(events[i].eventId), firstEventNumber + i);
  }

  /** Forgets a write that was refused. */
  forget(events: ReadonlyArray<{ eventId: string }>): void {
    this.firstIds.entries.delete(events[0].eventId.toLowerCase());
    for (let i = 1; i < events.length; i++) this.otherIds.delete(idHash(events[i].eventId));
  }
}
