/**
 * The leader election through etcd. The leader is whoever holds `/svcdb/<cluster>/leader`: the
 * key is created, only if absent, on a lease of the candidate's own, so it goes when that lease
 * lapses (the leader died, hung, or lost etcd) or when the leader resigns. The term is the key's
 * create revision: etcd revisions only grow, and each creation of the key has its own, so two
 * leaders never share a term and a later leader always has a higher one.
 *
 * A leader may acknowledge a write only while its lease is certainly alive in etcd
 * (`mayAcknowledge()`, see LeaseKeeper): another node can create the key only once etcd has let
 * that lease lapse, which is after the moment this node stops acknowledging.
 *
 * Who campaigns is decided by campaign-rule.ts, which counts only positions published after the
 * node saw the leader key gone. A node that sees it gone writes the election-round key, and every
 * node publishes its position anew when that key changes: so a node that saw the leader go
 * before another started (and so published before the other's threshold) publishes again, and
 * neither waits for the other for ever.
 */
import { EventEmitter } from 'node:events';
import type { Etcd3, IKeyValue, Watcher } from 'etcd3';
import { mayCampaign } from './campaign-rule.js';
import { cancelWatches, deadline, revision, type ClusterKeys } from './etcd-connection.js';
import { LeaseKeeper } from './lease-keeper.js';
import type { Membership } from './membership.js';
import { monotonicClock } from './monotonic-clock.js';

export interface ElectionOptions {
  client: Etcd3;
  keys: ClusterKeys;
  membership: Membership;
  id: string;
  httpUrl: string;
  clusterSize: number;
  ttlMs: number;
  driftMarginMs: number;
  requestTimeoutMs: number;
}

export interface LeaderInfo {
  readonly id: string;
  readonly httpUrl: string;
  readonly term: number;
}

/** Pause before trying again after etcd failed a step of the election. */
const RETRY_MS = 200;

function parseLeader(kv: IKeyValue): LeaderInfo | undefined {
  try {
    const value = JSON.parse(kv.value.toString('utf8')) as { id?: unknown; httpUrl?: unknown };
    if (typeof value.id !== 'string' || typeof value.httpUrl !== 'string') return undefined;
    return { id: value.id, httpUrl: value.httpUrl, term: revision(kv.create_revision) };
  } catch {
    return undefined;
  }
}

/**
 * Events: `leader` (term) when this node won; `follower` (LeaderInfo | undefined) when it stopped
 * leading or another leader appeared; `fenced` when a leader's lease is about to lapse and it may
 * no longer acknowledge; `unfenced` when etcd renewed it in time after all; `reachable` /
 * `unreachable` (error) after requests to etcd.
 */
export class Election extends EventEmitter {
  private lease: LeaseKeeper | undefined;
  private watchers: Watcher[] = [];
  private campaigning = false;
  private closed = false;
  private fenced = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private recheckTimer: NodeJS.Timeout | undefined;
  /** A node that resigned stays out of the next election until this monotonic time. */
  private abstainUntil = Number.NEGATIVE_INFINITY;
  /** The revision at which the leader key was last seen absent. */
  private leaderGoneRevision = 0;
  /** The leader etcd has now, as the watch last said; undefined while there is none. */
  leader: LeaderInfo | undefined;
  /** This node's term while it leads; 0 otherwise. */
  term = 0;

  constructor(private readonly options: ElectionOptions) {
    super();
  }

  get isLeader(): boolean {
    return this.term !== 0;
  }

  /** True only while this node leads and its lease cannot have lapsed in etcd. */
  mayAcknowledge(): boolean {
    return this.term !== 0 && this.lease !== undefined && this.lease.valid();
  }

  /** The monotonic time up to which the leader may acknowledge (for tests and diagnostics). */
  acknowledgeDeadline(): number {
    return this.lease?.validUntil ?? Number.NEGATIVE_INFINITY;
  }

  /** Monotonic time at which the last keepalive of the leader lease that etcd answered was sent. */
  lastRenewalSentAt(): number {
    return this.lease?.lastRenewalSentAt ?? Number.NEGATIVE_INFINITY;
  }

  async start(): Promise<void> {
    this.options.membership.on('change', this.onMembersChanged);
    while (!this.closed) {
      try {
        await this.watchLeader();
        return;
      } catch (error) {
        this.emit('unreachable', error);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  /** Gives up leadership on purpose and stays out of the next election for one lease TTL. */
  async resign(): Promise<void> {
    if (!this.isLeader) return;
    const term = this.term;
    this.abstainUntil = monotonicClock() + this.options.ttlMs;
    this.retryLater(this.options.ttlMs);
    this.stepDown();
    const { client, keys, requestTimeoutMs } = this.options;
    // Delete the key only if it is still this term's (compare its create revision).
    await client.if(keys.leader, 'Create', '==', term).then(client.delete().key(keys.leader)).options(deadline(requestTimeoutMs)).commit().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.recheckTimer);
    this.options.membership.off('change', this.onMembersChanged);
    await this.resign();
    await cancelWatches(this.watchers, this.options.requestTimeoutMs);
  }

  /**
   * Reads the leader key again, once a lease TTL: a watch can miss an event (etcd stopped
   * entirely and started again, say), and a node that kept believing in a leader whose key is
   * gone would neither campaign nor follow anyone else.
   */
  private recheckLeaderLater(): void {
    clearTimeout(this.recheckTimer);
    if (this.closed) return;
    this.recheckTimer = setTimeout(() => {
      void this.recheckLeader().catch((error: unknown) => this.emit('unreachable', error)).finally(() => this.recheckLeaderLater());
    }, this.options.ttlMs);
    // A check now and then is no reason for the process to stay up.
    this.recheckTimer.unref();
  }

  private async recheckLeader(): Promise<void> {
    const { client, keys, requestTimeoutMs } = this.options;
    const response = await client.get(keys.leader).options(deadline(requestTimeoutMs)).exec();
    if (this.closed) return;
    const kv = response.kvs[0];
    const known = this.leader;
    if (!kv) {
      if (known || this.isLeader) this.leaderGone(revision(response.header.revision));
      return;
    }
    const found = parseLeader(kv);
    if (found?.id !== known?.id || found?.term !== known?.term) this.leaderPut(kv);
  }

  private async watchLeader(): Promise<void> {
    const { client, keys, requestTimeoutMs } = this.options;
    const response = await client.get(keys.leader).options(deadline(requestTimeoutMs)).exec();
    this.emit('reachable');
    const kv = response.kvs[0];
    if (kv) this.leaderPut(kv);
    else this.leaderGone(revision(response.header.revision));
    const from = String(revision(response.header.revision) + 1);
    const leaderWatcher = await client.watch().key(keys.leader).startRevision(from).create();
    this.watchers.push(leaderWatcher);
    // Closed meanwhile: watches left open would keep reconnecting, and the process alive.
    if (this.closed) {
      await cancelWatches(this.watchers, requestTimeoutMs);
      return;
    }
    leaderWatcher.on('put', (put) => this.leaderPut(put));
    leaderWatcher.on('delete', (deleted) => this.leaderGone(revision(deleted.mod_revision)));
    const roundWatcher = await client.watch().key(keys.electionRound).startRevision(from).create();
    this.watchers.push(roundWatcher);
    if (this.closed) {
      await cancelWatches(this.watchers, requestTimeoutMs);
      return;
    }
    roundWatcher.on('put', () => {
      if (!this.leader) this.options.membership.publishNow().catch(() => this.retryLater(RETRY_MS));
    });
    // The client reconnects a watch by itself and resumes from its last revision; the recheck
    // covers what a reconnect may still miss.
    for (const watcher of this.watchers) watcher.on('error', () => undefined);
    this.recheckLeaderLater();
  }

  private leaderPut(kv: IKeyValue): void {
    const leader = parseLeader(kv);
    this.leader = leader;
    if (this.isLeader && leader?.term !== this.term) this.stepDown();
    if (leader && leader.id !== this.options.id) this.emit('follower', leader);
  }

  private leaderGone(atRevision: number): void {
    this.leader = undefined;
    this.leaderGoneRevision = Math.max(this.leaderGoneRevision, atRevision);
    if (this.isLeader) this.stepDown();
    // The campaign rule counts only positions published after this moment; the round key makes
    // every node publish again.
    const { client, keys, requestTimeoutMs } = this.options;
    client.put(keys.electionRound).value(this.options.id).options(deadline(requestTimeoutMs)).exec()
      .then(() => this.options.membership.publishNow())
      .catch(() => this.retryLater(RETRY_MS));
    this.considerCampaign();
  }

  private readonly onMembersChanged = (): void => {
    this.considerCampaign();
  };

  private retryLater(delayMs: number): void {
    clearTimeout(this.retryTimer);
    if (this.closed) return;
    this.retryTimer = setTimeout(() => {
      if (!this.leader) this.options.membership.publishNow().catch(() => undefined);
      this.considerCampaign();
    }, delayMs);
  }

  private considerCampaign(): void {
    if (this.closed || this.campaigning || this.isLeader || this.leader || monotonicClock() < this.abstainUntil) return;
    const verdict = mayCampaign(this.options.id, this.options.membership.members(), this.options.clusterSize, this.leaderGoneRevision);
    if (!verdict.campaign) return;
    this.campaigning = true;
    this.campaign().catch((error: unknown) => {
      this.emit('unreachable', error);
      this.retryLater(RETRY_MS);
    }).finally(() => {
      this.campaigning = false;
    });
  }

  private async campaign(): Promise<void> {
    const { client, keys, id, httpUrl, ttlMs, driftMarginMs, requestTimeoutMs } = this.options;
    const lease = new LeaseKeeper(client, { ttlMs, driftMarginMs, requestTimeoutMs });
    try {
      await lease.grant();
      const result = await client.if(keys.leader, 'Create', '==', 0)
        .then(client.put(keys.leader).value(JSON.stringify({ id, httpUrl })).lease(lease.id))
        .options(deadline(requestTimeoutMs)).commit();
      this.emit('reachable');
      if (!result.succeeded || this.closed) {
        await lease.revoke();
        return;
      }
      this.becomeLeader(lease, revision(result.header.revision));
    } catch (error) {
      await lease.revoke();
      throw error;
    }
  }

  private becomeLeader(lease: LeaseKeeper, term: number): void {
    this.lease = lease;
    this.term = term;
    this.fenced = false;
    lease.on('lapsing', () => {
      this.fenced = true;
      this.emit('fenced');
    });
    lease.on('renewed', () => {
      this.emit('reachable');
      if (!this.fenced) return;
      this.fenced = false;
      this.emit('unfenced');
    });
    lease.on('unreachable', (error: unknown) => this.emit('unreachable', error));
    lease.on('lost', () => this.stepDown());
    this.emit('leader', term);
  }

  private stepDown(): void {
    if (!this.isLeader) return;
    const lease = this.lease;
    this.term = 0;
    this.lease = undefined;
    this.fenced = false;
    // The key goes with the lease; revoking it lets the next leader in without waiting the TTL.
    void lease?.revoke();
    this.emit('follower', this.leader?.id === this.options.id ? undefined : this.leader);
  }
}
