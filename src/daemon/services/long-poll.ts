/**
 * Long polls: requests waiting for the next event of a stream (or of the log). Waiters sit in a
 * map by stream name with a timer each. The hub is a consumer of the log: woken after a commit
 * is acknowledged (so the appends' replies go out first), it reads what was written and wakes the
 * waiters of those streams a slice at a time, letting the event loop turn between slices. An
 * idle waiter costs a timer and a map entry, no CPU; with nobody waiting nothing is read.
 */
import type { ConsumerOptions, LogConsumer } from '../../storage/read/log-consumers.js';
import type { AllPage } from '../../storage/read/reader.js';

export const ALL_STREAMS = '$all';

/** Waiters woken in one turn of the event loop. */
const WAKE_SLICE_MAX = 256;

interface Waiter {
  wake: (woken: boolean) => void;
}

export class LongPollHub {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private consumer: LogConsumer | undefined;
  private closed = false;
  /** Turns of the event loop that woke waiters, for stats and tests. */
  wakeSlices = 0;

  /** `follow` is the engine's: the hub follows the log from the first wait on. */
  constructor(private readonly follow: (options: ConsumerOptions) => LogConsumer) {}

  /**
   * Resolves true when an event is written to `streamName` (any stream for ALL_STREAMS), false
   * when `timeoutMs` passes or `abort` fires first (the client went away), at once once closed.
   */
  wait(streamName: string, timeoutMs: number, abort?: AbortSignal): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    this.consumer ??= this.follow({
      name: 'long-polls', handle: (page) => this.committed(page), wanted: () => this.waiters.size > 0,
    });
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

  private async committed(page: AllPage): Promise<void> {
    if (page.events.length === 0 || this.waiters.size === 0) return;
    const woken: Waiter[] = [];
    const streams = new Set(page.events.map((event) => event.streamName));
    for (const streamName of [...streams, ALL_STREAMS]) {
      const set = this.waiters.get(streamName);
      if (set) woken.push(...set);
    }
    for (let start = 0; start < woken.length; start += WAKE_SLICE_MAX) {
      if (start > 0) await new Promise((resolve) => setImmediate(resolve));
      for (const waiter of woken.slice(start, start + WAKE_SLICE_MAX)) waiter.wake(true);
      this.wakeSlices++;
    }
  }

  /** Releases every waiter and any later one (shutdown), and stops following the log. */
  close(): void {
    this.closed = true;
    this.consumer?.stop();
    for (const set of [...this.waiters.values()]) for (const waiter of [...set]) waiter.wake(false);
  }
}
