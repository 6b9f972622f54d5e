/**
 * Failed logins per client address, to slow down guessing from one source. Failures are counted
 * in a window that starts with the first one; at `failuresMax` within the window the source is
 * refused for a backoff, and every failure after a backoff ends starts one twice as long (up to
 * `backoffMsMax`). A source is forgotten when it logs in successfully, when its window passes
 * without reaching the threshold, or when it stays quiet for a window after its last backoff.
 * At most `sourcesMax` sources are remembered; beyond that the least recently failed is dropped.
 */
import { performance } from 'node:perf_hooks';
import { LRUCache } from 'lru-cache';

export interface FailedLoginLimits {
  /** Failures within a window that start a backoff; 0 never refuses a source. */
  failuresMax: number;
  windowMs: number;
  backoffMsFirst: number;
  backoffMsMax: number;
  sourcesMax: number;
}

export const DEFAULT_FAILED_LOGIN_LIMITS: Omit<FailedLoginLimits, 'failuresMax'> = Object.freeze({
  windowMs: 60_000,
  backoffMsFirst: 5_000,
  backoffMsMax: 60_000,
  // About 100 bytes each: a megabyte at most, however many addresses a flood comes from.
  sourcesMax: 10_000,
});

interface SourceRecord {
  failures: number;
  /** Refused until then; 0 before the first backoff. */
  blockedUntilMs: number;
  /** The last backoff given; 0 before the first. */
  backoffMs: number;
  /** Forgotten from then on. */
  expiresAtMs: number;
}

export interface FailedLoginStats {
  /** Sources remembered with at least one recent failure. */
  sources: number;
  /** Sources refused right now. */
  blockedSources: number;
  /** Failed logins counted since start. */
  failures: number;
}

export class FailedLogins {
  private readonly sources: LRUCache<string, SourceRecord>;
  private failuresTotal = 0;

  constructor(private readonly limits: FailedLoginLimits, private readonly now: () => number = performance.now.bind(performance)) {
    this.sources = new LRUCache({ max: limits.sourcesMax });
  }

  /** How long `source` must wait before its next attempt is heard; 0 when it may try now. */
  retryAfterMs(source: string): number {
    // Nearly always: no source has failed lately.
    if (this.sources.size === 0) return 0;
    const record = this.sources.peek(source);
    if (record === undefined) return 0;
    const now = this.now();
    if (now >= record.expiresAtMs) {
      this.sources.delete(source);
      return 0;
    }
    return Math.max(0, record.blockedUntilMs - now);
  }

  failed(source: string): void {
    if (this.limits.failuresMax === 0) return;
    this.failuresTotal++;
    const now = this.now();
    let record = this.sources.get(source);
    if (record === undefined || now >= record.expiresAtMs) {
      record = { failures: 0, blockedUntilMs: 0, backoffMs: 0, expiresAtMs: now + this.limits.windowMs };
      this.sources.set(source, record);
    }
    record.failures++;
    // A failure heard while refused came from a verification that began before the refusal.
    if (record.failures < this.limits.failuresMax || now < record.blockedUntilMs) return;
    const { backoffMsFirst, backoffMsMax, windowMs } = this.limits;
    record.backoffMs = record.backoffMs === 0 ? backoffMsFirst : Math.min(record.backoffMs * 2, backoffMsMax);
    record.blockedUntilMs = now + record.backoffMs;
    record.expiresAtMs = record.blockedUntilMs + windowMs;
  }

  succeeded(source: string): void {
    if (this.sources.size > 0) this.sources.delete(source);
  }

  stats(): FailedLoginStats {
    const now = this.now();
    let sources = 0;
    let blockedSources = 0;
    for (const record of this.sources.values()) {
      if (now < record.expiresAtMs) sources++;
      if (now < record.blockedUntilMs) blockedSources++;
    }
    return { sources, blockedSources, failures: this.failuresTotal };
  }
}
