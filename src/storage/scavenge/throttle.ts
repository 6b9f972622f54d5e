/**
 * The throttle: between steps of a run it rests so that the run is active for about
 * `throttlePercent` of the time. Rest is owed as the run works and taken only once it reaches
 * REST_MS_MIN, so a throttled run pauses in a few long rests rather than many short ones.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';

export const REST_MS_MIN = 1000;

export class Throttle {
  private since = performance.now();
  private owedMs = 0;
  /** Time spent resting so far. */
  restedMs = 0;

  constructor(private readonly percent: number, private readonly signal: AbortSignal) {}

  /** Called after each step: rests when enough rest is owed; a stop cuts the rest short. */
  async rest(): Promise<void> {
    if (this.percent >= 100) return;
    const now = performance.now();
    this.owedMs += ((now - this.since) * (100 - this.percent)) / this.percent;
    this.since = now;
    if (this.owedMs < REST_MS_MIN || this.signal.aborted) return;
    const restMs = this.owedMs;
    this.owedMs = 0;
    await sleep(restMs, undefined, { signal: this.signal }).catch(() => undefined);
    const after = performance.now();
    this.restedMs += after - now;
    this.since = after;
  }
}
