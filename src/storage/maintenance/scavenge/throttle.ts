/**
 * The throttle: between steps of a run it rests so that the run is active for about
 * `throttlePercent` of the time. Rest is owed as the run works and taken only once it reaches
 * REST_MS_MIN, so a throttled run pauses in a few long rests rather than many short ones; what is
 * still owed when the run's work ends is taken then (settle), so 50% takes twice as long as 100%. Between
 * steps the event loop always turns, even at 100%: the steps are synchronous (a chunk's records,
 * a batch of streams), and appends and reads in the same process wait for the turn. Below 100% a
 * run also gives way to the log's group commits (giveWay): a commit needs two turns of the event
 * loop, and without it a step ran in each of them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import type { RewriteOptions } from '../chunk-rewrite.js';
import { commitEndOrTimeout, type ClientCommits } from '../../log/give-way.js';

export const REST_MS_MIN = 1000;
/**
 * A throttled run writes its chunks in flushed steps of this size (RewriteTarget.flushStepBytes),
 * so appends' flushes wait behind at most one step: it leaves the disk to clients as it leaves
 * them the CPU. Smaller steps slowed the rewrite several times over for little more.
 */
const THROTTLED_FLUSH_STEP_BYTES = 256 * 1024;

/** Where the throttle reads the time and rests; tests pass a clock of their own. */
export interface ThrottleClock {
  now(): number;
  sleep(ms: number, signal: AbortSignal): Promise<unknown>;
}

const REAL_CLOCK: ThrottleClock = {
  now: () => performance.now(),
  sleep: (ms, signal) => sleep(ms, undefined, { signal }),
};

export class Throttle {
  private since: number;
  private owedMs = 0;
  /** Time spent resting so far. */
  restedMs = 0;
  /** Time spent giving way to group commits so far: neither work nor rest. */
  gaveWayMs = 0;

  constructor(
    private readonly percent: number,
    private readonly signal: AbortSignal,
    private readonly writes?: ClientCommits,
    private readonly clock: ThrottleClock = REAL_CLOCK,
  ) {
    this.since = clock.now();
  }

  /** How a run at this throttle rewrites chunks: in flushed steps, giving way between blocks, below 100%. */
  get rewriteOptions(): Pick<RewriteOptions, 'flushStepBytes' | 'betweenBlocks'> {
    return this.percent < 100 ? { flushStepBytes: THROTTLED_FLUSH_STEP_BYTES, betweenBlocks: () => this.giveWay() } : {};
  }

  /** Called after each step: gives way, lets the event loop turn, and rests when enough rest is owed; a stop cuts the rest short. */
  async rest(): Promise<void> {
    await this.giveWay();
    await new Promise((resolve) => setImmediate(resolve));
    await this.restAtLeast(REST_MS_MIN);
  }

  /**
   * Below 100%, before a step: waits (at most GIVE_WAY_MS_MAX) for the log's group commit under
   * way to end, so that at most one step runs per commit. The wait counts as neither work nor rest.
   */
  async giveWay(): Promise<void> {
    const commit = this.percent < 100 ? this.writes?.commitWithClientsWaiting() : undefined;
    if (commit === undefined) return;
    const started = this.clock.now();
    await commitEndOrTimeout(commit);
    const waited = this.clock.now() - started;
    this.gaveWayMs += waited;
    this.since += waited;
  }

  /** Called once the run's work is done: takes whatever rest is still owed, however short. */
  async settle(): Promise<void> {
    await this.restAtLeast(0);
  }

  private async restAtLeast(minimumMs: number): Promise<void> {
    if (this.percent >= 100) return;
    const now = this.clock.now();
    this.owedMs += ((now - this.since) * (100 - this.percent)) / this.percent;
    this.since = now;
    if (this.owedMs <= 0 || this.owedMs < minimumMs || this.signal.aborted) return;
    const restMs = this.owedMs;
    this.owedMs = 0;
    await this.clock.sleep(restMs, this.signal).catch(() => undefined);
    const after = this.clock.now();
    this.restedMs += after - now;
    this.since = after;
  }
}
