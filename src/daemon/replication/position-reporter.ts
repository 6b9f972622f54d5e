/**
 * A cluster follower's reports to its leader of how far its log is durable, which the leader
 * counts towards the majority a write waits for. Only durable positions are reported (the
 * follower calls `durableMoved()` once a step is fsynced and writer.chk moved). One report is in
 * flight at a time; positions that come meanwhile are coalesced into the next, which carries the
 * newest. While connected it also reports every second even if nothing moved, so that the leader
 * knows the follower is alive. A failed report is not retried by itself: the next one (a move or
 * the second's tick) carries the position again.
 */
import type { Logger } from '../../common/logger.js';

/** A follower re-reports at least this often while connected; the leader counts one silent for 3 s as gone. */
export const POSITION_REPORT_INTERVAL_MS = 1000;

export interface PositionReporterDependencies {
  nodeId: string;
  /** The durable end of the follower's log (writer.chk). */
  durablePosition(): number;
  send(nodeId: string, writerCheckpoint: number, signal: AbortSignal): Promise<void>;
  logger: Logger;
  intervalMs?: number;
}

export class PositionReporter {
  private inFlight: Promise<void> | undefined;
  /** The position last sent (or tried): a report that would repeat it waits for the tick. */
  private sentPosition = -1;
  /** The tick asked for a report while one was in flight. */
  private forced = false;
  private failing = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly stopping = new AbortController();

  constructor(private readonly deps: PositionReporterDependencies) {}

  /** A step was made durable: reports the position if it moved, now or after the report in flight. */
  durableMoved(): void {
    this.report(false);
  }

  /** The follower follows the leader: reports at once, then every interval. */
  connected(): void {
    if (this.stopping.signal.aborted) return;
    clearInterval(this.timer);
    this.timer = setInterval(() => this.report(true), this.deps.intervalMs ?? POSITION_REPORT_INTERVAL_MS);
    this.timer.unref();
    this.report(true);
  }

  /** The stream broke off: no ticks until it is back (moves are still reported). */
  disconnected(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Stops the ticks and cuts the report in flight short; resolves once it settled. */
  async stop(): Promise<void> {
    this.disconnected();
    this.stopping.abort();
    await this.inFlight;
  }

  private report(force: boolean): void {
    if (this.stopping.signal.aborted) return;
    this.forced ||= force;
    if (this.inFlight) return;
    const position = this.deps.durablePosition();
    if (!this.forced && position === this.sentPosition) return;
    this.forced = false;
    this.sentPosition = position;
    this.inFlight = this.send(position).finally(() => {
      this.inFlight = undefined;
      this.report(false);
    });
  }

  /** Sends one report; never throws. Logs only when reports start or stop failing. */
  private async send(position: number): Promise<void> {
    try {
      await this.deps.send(this.deps.nodeId, position, this.stopping.signal);
      if (this.failing) this.deps.logger.info({ position }, 'position reports reach the leader again');
      this.failing = false;
    } catch (error) {
      if (this.stopping.signal.aborted || this.failing) return;
      this.failing = true;
      this.deps.logger.warn({ reason: (error as Error).message }, 'position reports do not reach the leader; the leader counts this node out of its majority until they do');
    }
  }
}
