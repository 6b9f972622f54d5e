/**
 * The events of a projection with `reorderEvents`: each is held for `processingLag` ms after it was
 * read, then handed to the handlers in log-position order. The log is read in order, so what the
 * buffer adds is the wait: events of several streams written close together are handed over
 * together, ordered, and a checkpoint never moves past an event still held (a restart reads it again).
 */
import type { SourceEvent } from './source-event.js';

interface Held {
  event: SourceEvent;
  dueMs: number;
}

export class ReorderBuffer {
  private held: Held[] = [];

  constructor(readonly lagMs: number) {}

  get size(): number {
    return this.held.length;
  }

  /** Log position of the first event held, where reading must resume after a restart. */
  get firstPosition(): number | undefined {
    return this.held[0]?.event.position;
  }

  /** Milliseconds until the first event held is due; undefined when none is held. */
  dueInMs(nowMs: number): number | undefined {
    return this.held.length === 0 ? undefined : Math.max(0, this.held[0].dueMs - nowMs);
  }

  add(events: readonly SourceEvent[], nowMs: number): void {
    for (const event of events) this.held.push({ event, dueMs: nowMs + this.lagMs });
  }

  /**
   * The events due by `nowMs` (all of them with `all`), and the oldest beyond `heldMax` so that
   * memory stays bounded, in log-position order; they leave the buffer.
   */
  take(nowMs: number, all: boolean, heldMax: number): SourceEvent[] {
    let count = Math.max(0, this.held.length - heldMax);
    while (count < this.held.length && (all || this.held[count].dueMs <= nowMs)) count++;
    const due = this.held.slice(0, count).map((held) => held.event);
    this.held = this.held.slice(count);
    return due.sort((a, b) => a.position - b.position);
  }

  clear(): void {
    this.held = [];
  }
}
