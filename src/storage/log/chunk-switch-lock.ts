/**
 * The node-wide chunk-switch lock. Whoever replaces chunks holds it: a scavenge for its whole run,
 * a redaction from before it asks where its events lie until its last chunk is switched in (over
 * several requests of a client). They exclude each other: while one holds it, the other is
 * refused at once with SVCDB_ERR_CHUNK_SWITCH_LOCKED, naming the holder's kind.
 */
import { randomUUID } from 'node:crypto';
import { Errors } from '../../common/errors.js';

export type ChunkSwitchHolderKind = 'scavenge' | 'redaction';

/** Proof of holding the lock; passed back to switch chunks and to release it. */
export interface ChunkSwitchHold {
  readonly id: string;
  readonly kind: ChunkSwitchHolderKind;
  readonly sinceMs: number;
}

export class ChunkSwitchLock {
  private current: ChunkSwitchHold | undefined;

  constructor(private readonly clock: () => number = Date.now) {}

  /** Takes the lock for `kind`, or throws SVCDB_ERR_CHUNK_SWITCH_LOCKED naming who holds it. */
  take(kind: ChunkSwitchHolderKind): ChunkSwitchHold {
    if (this.current) throw Errors.chunkSwitchLocked.create(this.current.kind, this.current.sinceMs);
    this.current = Object.freeze({ id: randomUUID(), kind, sinceMs: this.clock() });
    return this.current;
  }

  /** Releases the lock if `hold` is what holds it; a stale or repeated release does nothing. */
  release(hold: ChunkSwitchHold | string): boolean {
    const id = typeof hold === 'string' ? hold : hold.id;
    if (this.current?.id !== id) return false;
    this.current = undefined;
    return true;
  }

  /** Who holds the lock now, if anyone. */
  get holder(): ChunkSwitchHold | undefined {
    return this.current;
  }

  /** The hold an id names, when it is the one holding the lock. */
  holdOf(id: string): ChunkSwitchHold | undefined {
    return this.current?.id === id ? this.current : undefined;
  }

  /**
   * Checks that a chunk switch made with `hold` may go on: the lock is free (the switch holds it
   * for its own duration) or `hold` is its holder.
   */
  checkSwitch(hold: ChunkSwitchHold | undefined): void {
    if (!this.current || this.current.id === hold?.id) return;
    throw Errors.chunkSwitchLocked.create(this.current.kind, this.current.sinceMs);
  }
}
