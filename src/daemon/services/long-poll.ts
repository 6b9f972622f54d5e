/**
 * Long polls: requests waiting for the next event of a stream (or of the log). Waiters sit in a
 * map by stream name with a timer each; one listener on the engine's commits wakes the waiters
 * of the streams written. An idle waiter costs a timer and a map entry, no CPU.
 */
import type { CommittedWrite } from '../../storage/writer.js';

export const ALL_STREAMS = '$all';

interface Waiter {
  wake: (woken: boolean) => void;
}

export class LongPollHub {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private unsubscribe: (() => void) | undefined;

  /** `subscribe` is the engine's onCommitted; the hub listens from the first wait on. */
  constructor(private readonly subscribe: (listener: (writes: CommittedWrite[]) => void) => () => void) {}

  /**
   * Resolves true when an event is written to `streamName` (any stream for ALL_STREAMS), false
   * when `timeoutMs` passes or `abort` fires first (the client went away).
   */
  wait(streamName: string, timeoutMs: number, abort?: AbortSignal): Promise<boolean> {
    this.unsubscribe ??= this.subscribe((writes) => this.committed(writes));
    return new Promise((resolve) => {
      let set = this.waiters.get(streamName);
      if (!set) {
        set = new Set();
        this.waiters.set(streamName, set);
      }
      const waiters = set;
      const waiter: Waiter = {
        wake: (woken) => {
          clearTimeout(timer);
          abort?.removeEventListener('abort', onAbort);
          waiters.delete(waiter);
          if (waiters.size === 0 && this.waiters.get(streamName) === waiters) this.waiters.delete(streamName);
          resolve(woken);
        },
      };
      const onAbort = () => waiter.wake(false);
      const timer = setTimeout(() => waiter.wake(false), timeoutMs);
      abort?.addEventListener('abort', onAbort, { once: true });
      waiters.add(waiter);
    });
  }

  /** How many requests are waiting (for stats and tests). */
  get waiting(): number {
    let count = 0;
    for (const set of this.waiters.values()) count += set.size;
    return count;
  }

  private committed(writes: CommittedWrite[]): void {
    if (this.waiters.size === 0) return;
    for (const write of writes) this.wakeAll(write.streamName);
    this.wakeAll(ALL_STREAMS);
  }

  private wakeAll(streamName: string): void {
    const set = this.waiters.get(streamName);
    if (!set) return;
    for (const waiter of [...set]) waiter.wake(true);
  }

  /** Releases every waiter (shutdown) and stops listening. */
  close(): void {
    this.unsubscribe?.();
    for (const set of [...this.waiters.values()]) for (const waiter of [...set]) waiter.wake(false);
  }
}
