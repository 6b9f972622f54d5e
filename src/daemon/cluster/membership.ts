/**
 * This node's registration in etcd and its view of the other members.
 *
 * The node's record lives under `/svcdb/<cluster>/members/<id>` on a lease of its own, so a node
 * that stops (or loses etcd for longer than the TTL) disappears from every member's list. The
 * node publishes its durable position when asked, at most once per `publishIntervalMs` (the last
 * position asked for is the one that goes), so a busy writer does not flood etcd. The member list
 * is read once and then kept by a watch of the prefix; a change emits `change`.
 */
import { EventEmitter } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { Etcd3, IKeyValue, Watcher } from 'etcd3';
import { cancelWatches, deadline, revision, type ClusterKeys } from './etcd-connection.js';
import { LeaseKeeper } from './lease-keeper.js';
import { parseMemberRecord, type Member, type MemberRecord } from './member-record.js';

export interface MembershipOptions {
  client: Etcd3;
  keys: ClusterKeys;
  id: string;
  httpUrl: string;
  priority: number;
  ttlMs: number;
  driftMarginMs: number;
  publishIntervalMs: number;
  requestTimeoutMs: number;
  /** The node's durable end and newest epoch, read at each publication. */
  position: () => { writerCheckpoint: number; epoch: number };
  /** What the node says it is (Leader, Follower, …), read at each publication. */
  state: () => string;
}

/** Pause between attempts to register while etcd cannot be reached. */
const REGISTER_RETRY_MS = 200;

/**
 * Events: `change` when the member list changed; `reachable` / `unreachable` (error) after each
 * request to etcd, for the state log; `registered` each time the node's record is in etcd on a
 * new lease.
 */
export class Membership extends EventEmitter {
  private readonly byKey = new Map<string, Member>();
  private lease: LeaseKeeper | undefined;
  private watcher: Watcher | undefined;
  private publishTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private lastPublishedAt = Number.NEGATIVE_INFINITY;
  private closed = false;

  constructor(private readonly options: MembershipOptions) {
    super();
  }

  /** Registers the node and starts the watch; resolves once both are in place, trying until etcd answers. */
  async start(): Promise<void> {
    await this.untilDone(() => this.register());
    await this.untilDone(() => this.watch());
  }

  /** The members etcd has now, this node included once registered, by id. */
  members(): Member[] {
    return [...this.byKey.values()].sort((a, b) => (a.record.id < b.record.id ? -1 : 1));
  }

  /** Whether etcd lists a member with this id; no copy and no sort, for a check on every report. */
  isMember(id: string): boolean {
    for (const { record } of this.byKey.values()) if (record.id === id) return true;
    return false;
  }

  /** Publishes the position soon: now if the last publication is old enough, else when it is. */
  positionChanged(): void {
    if (this.closed || this.publishTimer) return;
    const waitMs = Math.max(0, this.lastPublishedAt + this.options.publishIntervalMs - Date.now());
    this.publishTimer = setTimeout(() => {
      this.publishTimer = undefined;
      void this.publishNow().catch(() => undefined);
    }, waitMs);
  }

  /** Writes the record now; resolves with the etcd revision of the write. */
  async publishNow(): Promise<number> {
    const lease = this.lease;
    if (!lease || this.closed) throw new Error('the node is not registered in etcd');
    this.lastPublishedAt = Date.now();
    try {
      const response = await this.options.client.put(this.options.keys.member(this.options.id))
        .value(JSON.stringify(this.record())).lease(lease.id).options(deadline(this.options.requestTimeoutMs)).exec();
      this.emit('reachable');
      return revision(response.header.revision);
    } catch (error) {
      this.emit('unreachable', error);
      throw error;
    }
  }

  /** Revokes the node's lease, so that its record goes at once, and stops watching. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.publishTimer);
    clearTimeout(this.retryTimer);
    await cancelWatches(this.watcher ? [this.watcher] : [], this.options.requestTimeoutMs);
    await this.lease?.revoke();
  }

  record(): MemberRecord {
    const { writerCheckpoint, epoch } = this.options.position();
    return { id: this.options.id, httpUrl: this.options.httpUrl, state: this.options.state(), writerCheckpoint, epoch, priority: this.options.priority };
  }

  private async register(): Promise<void> {
    const lease = new LeaseKeeper(this.options.client, {
      ttlMs: this.options.ttlMs, driftMarginMs: this.options.driftMarginMs, requestTimeoutMs: this.options.requestTimeoutMs,
    });
    lease.on('renewed', () => this.emit('reachable'));
    lease.on('unreachable', (error: unknown) => this.emit('unreachable', error));
    // The record went with the lease (etcd was away longer than the TTL): register anew.
    lease.on('lost', () => this.registerAgain());
    try {
      await lease.grant();
    } catch (error) {
      this.emit('unreachable', error);
      throw error;
    }
    this.lease = lease;
    await this.publishNow();
    this.emit('registered');
  }

  private async untilDone(step: () => Promise<void>): Promise<void> {
    while (!this.closed) {
      try {
        return await step();
      } catch {
        await delay(REGISTER_RETRY_MS);
      }
    }
  }

  private registerAgain(): void {
    if (this.closed) return;
    this.lease = undefined;
    this.register().catch(() => {
      this.retryTimer = setTimeout(() => this.registerAgain(), REGISTER_RETRY_MS);
    });
  }

  private async watch(): Promise<void> {
    const { client, keys, requestTimeoutMs } = this.options;
    const response = await client.getAll().prefix(keys.members).options(deadline(requestTimeoutMs)).exec().catch((error: unknown) => {
      this.emit('unreachable', error);
      throw error;
    });
    for (const kv of response.kvs) this.apply(kv, 'put');
    this.emit('change');
    const watcher = await client.watch().prefix(keys.members).startRevision(String(revision(response.header.revision) + 1)).create();
    // Closed meanwhile: a watch left open would keep reconnecting, and the process alive.
    if (this.closed) {
      await cancelWatches([watcher], requestTimeoutMs);
      return;
    }
    this.watcher = watcher;
    this.watcher.on('put', (kv) => {
      this.apply(kv, 'put');
      this.emit('change');
    });
    this.watcher.on('delete', (kv) => {
      this.apply(kv, 'delete');
      this.emit('change');
    });
    // The client reconnects a watch by itself and resumes from its last revision.
    this.watcher.on('error', () => undefined);
  }

  private apply(kv: IKeyValue, type: 'put' | 'delete'): void {
    const key = kv.key.toString('utf8');
    const record = type === 'put' ? parseMemberRecord(kv.value) : undefined;
    if (record) this.byKey.set(key, { record, modRevision: revision(kv.mod_revision) });
    else this.byKey.delete(key);
  }
}
