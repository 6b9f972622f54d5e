/**
 * At most `runningMax` tasks at once and at most `waitingMax` waiting for a turn; a task beyond
 * both is not taken at all, so the caller can refuse it at once instead of letting a queue grow
 * without end. A finishing task hands its slot straight to the first waiter, so the running
 * count never goes past its bound, not even between two microtasks.
 */

export interface ConcurrencyStats {
  running: number;
  runningMax: number;
  waiting: number;
  waitingMax: number;
  /** The most tasks that ever waited at once. */
  waitingPeak: number;
  /** Tasks turned away because every slot and the queue were taken. */
  refused: number;
}

export class BoundedConcurrency {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private waitingPeak = 0;
  private refused = 0;

  constructor(readonly runningMax: number, readonly waitingMax: number) {
    if (!Number.isInteger(runningMax) || runningMax < 1) throw new TypeError(`runningMax must be a positive integer, not ${runningMax}`);
    if (!Number.isInteger(waitingMax) || waitingMax < 0) throw new TypeError(`waitingMax must be an integer of at least 0, not ${waitingMax}`);
  }

  /** The task's result once it ran; undefined, without running it, when the bounds are reached. */
  tryRun<T>(task: () => Promise<T>): Promise<T> | undefined {
    if (this.running < this.runningMax) {
      this.running++;
      return this.runHolding(task);
    }
    if (this.waiting.length >= this.waitingMax) {
      this.refused++;
      return undefined;
    }
    const turn = new Promise<void>((resolve) => this.waiting.push(resolve));
    this.waitingPeak = Math.max(this.waitingPeak, this.waiting.length);
    return turn.then(() => this.runHolding(task));
  }

  stats(): ConcurrencyStats {
    const { running, runningMax, waitingMax, waitingPeak, refused } = this;
    return { running, runningMax, waiting: this.waiting.length, waitingMax, waitingPeak, refused };
  }

  /** Runs `task` in a slot already counted as running, and passes the slot on after it. */
  private async runHolding<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.running--;
      else next();
    }
  }
}
