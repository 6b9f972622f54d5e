/**
 * One etcd lease, kept alive by this node, and the moment up to which the node may count on it.
 *
 * etcd lets a lease lapse no earlier than TTL after it received the last keepalive, and it
 * received that keepalive after the node sent it. So "sent at + TTL", on the node's monotonic
 * clock, is a moment before which etcd cannot have let the lease lapse; the node keeps a drift
 * margin below it for clocks that run at slightly different rates and for its own scheduling
 * delay. That moment is `validUntil`. (etcd may keep a lease longer than TTL, for instance when
 * its own leader changes; that only makes the node's view more careful.)
 *
 * Keepalives are single requests with a deadline, one every third of the TTL (as etcd's Go client
 * does), and more often while they fail, so that the node notices etcd coming back quickly.
 */
import { EventEmitter } from 'node:events';
import { EtcdLeaseInvalidError, type Etcd3, type Lease } from 'etcd3';
import { monotonicClock, type Clock } from './monotonic-clock.js';

export interface LeaseKeeperOptions {
  ttlMs: number;
  driftMarginMs: number;
  requestTimeoutMs: number;
  clock?: Clock;
}

/** Pause between keepalives while etcd does not answer. */
const RETRY_MS = 200;

/**
 * Events: `renewed` after each keepalive etcd answered; `unreachable` (error) after each one it
 * did not; `lapsing` when `validUntil` passes without a renewal; `lost` once, when etcd says the
 * lease no longer exists (this keeper is then done).
 */
export class LeaseKeeper extends EventEmitter {
  private lease: Lease | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lapseTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly clock: Clock;
  /** Monotonic ms before which the lease cannot have lapsed in etcd, less the drift margin. */
  validUntil = Number.NEGATIVE_INFINITY;
  /** Monotonic ms at which the last keepalive that etcd answered was sent. */
  lastRenewalSentAt = Number.NEGATIVE_INFINITY;
  id = '';

  constructor(private readonly client: Etcd3, readonly options: LeaseKeeperOptions) {
    super();
    this.clock = options.clock ?? monotonicClock;
  }

  /** Grants the lease; rejects when etcd cannot be reached, and the keeper may be granted again. */
  async grant(): Promise<string> {
    const sentAt = this.clock();
    const lease = this.client.lease(Math.ceil(this.options.ttlMs / 1000), { autoKeepAlive: false, deadline: Date.now() + this.options.requestTimeoutMs });
    this.id = await lease.grant();
    this.lease = lease;
    this.renewed(sentAt);
    this.schedule(this.options.ttlMs / 3);
    return this.id;
  }

  /** Whether the lease is certainly still alive in etcd now. */
  valid(): boolean {
    return !this.closed && this.clock() < this.validUntil;
  }

  /** Revokes the lease (its keys go at once) and stops; errors are left to the TTL to clean up. */
  async revoke(): Promise<void> {
    const lease = this.lease;
    this.close();
    await lease?.revoke({ deadline: Date.now() + this.options.requestTimeoutMs }).catch(() => undefined);
  }

  close(): void {
    this.closed = true;
    this.validUntil = Number.NEGATIVE_INFINITY;
    clearTimeout(this.timer);
    clearTimeout(this.lapseTimer);
    this.lease?.release();
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.keepAlive(), delayMs);
  }

  private async keepAlive(): Promise<void> {
    const lease = this.lease;
    if (this.closed || !lease) return;
    const sentAt = this.clock();
    try {
      await lease.keepaliveOnce({ deadline: Date.now() + this.options.requestTimeoutMs });
      if (this.closed) return;
      this.renewed(sentAt);
      this.schedule(this.options.ttlMs / 3);
    } catch (error) {
      if (this.closed) return;
      if (error instanceof EtcdLeaseInvalidError) {
        this.close();
        this.emit('lost', error);
        return;
      }
      this.emit('unreachable', error);
      this.schedule(RETRY_MS);
    }
  }

  private renewed(sentAt: number): void {
    this.lastRenewalSentAt = sentAt;
    this.validUntil = sentAt + this.options.ttlMs - this.options.driftMarginMs;
    this.armLapseTimer();
    this.emit('renewed');
  }

  /**
   * Emits `lapsing` once `validUntil` has passed. A timer can fire a fraction of a millisecond
   * before the monotonic clock reaches its target (timers run on the event loop's cached time),
   * so it checks and, if early, waits for the rest: listeners must find valid() false.
   */
  private armLapseTimer(): void {
    clearTimeout(this.lapseTimer);
    const remainingMs = this.validUntil - this.clock();
    if (remainingMs > 0) {
      this.lapseTimer = setTimeout(() => this.armLapseTimer(), Math.ceil(remainingMs));
      return;
    }
    if (!this.closed) this.emit('lapsing');
  }
}
