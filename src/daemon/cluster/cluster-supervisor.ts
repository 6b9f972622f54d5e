/**
 * A cluster member's life: one ClusterNode (registration and election through etcd) for the whole
 * process, and the node composed (Daemon) for the role etcd gives it. A node starts knowing no
 * leader (its log served read-only, writes refused with a coded 503), then runs as the leader of
 * its term, or as a follower (a replica) of the leader etcd names. When the role changes the
 * composition is closed and opened again for the new one on the same address: a new leader's
 * engine writes the epoch of its term, and an old leader's, reopened as a follower, is cut back
 * at the handshake to what the new leader has. Roles that change while a switch runs are
 * coalesced: only the newest is composed.
 */
import { mkdir } from 'node:fs/promises';
import { Errors } from '../../common/errors.js';
import { PRIVATE_DIRECTORY_MODE } from '../../storage/disk/file-modes.js';
import { nodeIdentity } from '../../storage/disk/node-identity.js';
import { Daemon, type DaemonContext, type StopCause, type StopResult } from '../daemon.js';
import type { LoadedOptions } from '../options.js';
import type { ReloadOutcome } from '../tls/node-certificates.js';
import type { ReloadTrigger } from '../../storage/disk/reload-status.js';
import { ClusterNode } from './cluster-node.js';
import { clusterOptionsOf, type ClusterOptions } from './cluster-options.js';
import type { ClusterRole } from './cluster-role.js';
import type { ClusterMemberState } from './cluster-view.js';
import { LeaderTerm } from './leader-term.js';

/** What a node wants to be: the role without the parts a composition adds. */
type RoleWish = { kind: 'leader'; term: number } | { kind: 'follower'; leaderUrl: string } | { kind: 'leaderless' };

function sameWish(a: RoleWish, b: RoleWish): boolean {
  if (a.kind === 'leader' && b.kind === 'leader') return a.term === b.term;
  if (a.kind === 'follower' && b.kind === 'follower') return a.leaderUrl === b.leaderUrl;
  return a.kind === b.kind;
}

/** Pause before composing again after a composition failed to start; it doubles up to the max. */
const RETRY_START_MS = 500;
const RETRY_START_MS_MAX = 10_000;

export class ClusterSupervisor {
  private daemon: Daemon | undefined;
  private current: RoleWish | undefined;
  private wanted: RoleWish | undefined;
  /** The role being composed while no composition runs: a leader not yet open is a PreLeader. */
  private composing: RoleWish | undefined;
  private switching: Promise<void> | undefined;
  private leaderTerm: LeaderTerm | undefined;
  private stopping: Promise<StopResult> | undefined;
  private resolveStopped!: (result: StopResult) => void;
  /** The last durable position and epoch a composition had: what the node publishes between two. */
  private lastPosition = { writerCheckpoint: 0, epoch: -1 };
  private epochRead = { position: Number.NaN, number: -1 };
  private node!: ClusterNode;

  /** Resolves once the node stopped, whoever asked it to. */
  readonly stopped = new Promise<StopResult>((resolve) => {
    this.resolveStopped = resolve;
  });

  static async start(loaded: LoadedOptions, context: DaemonContext): Promise<ClusterSupervisor> {
    const cluster = clusterOptionsOf(loaded.values);
    if (!cluster) throw new TypeError('ClusterSupervisor.start needs the cluster options');
    // The identity lives in the db directory, which a first start creates (as the engine would).
    await mkdir(loaded.values.db, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
    const nodeId = await nodeIdentity(loaded.values.db);
    const supervisor = new ClusterSupervisor(loaded, context, cluster, nodeId);
    supervisor.createNode();
    // Reads are served from the start; writes wait for the election.
    supervisor.daemon = await supervisor.compose({ kind: 'leaderless' });
    supervisor.current = { kind: 'leaderless' };
    // Later compositions listen where the first did (the port it got when --http-port is 0).
    supervisor.loaded = { ...loaded, values: { ...loaded.values, httpPort: supervisor.daemon.address.port } };
    supervisor.joinCluster();
    return supervisor;
  }

  private constructor(
    private loaded: LoadedOptions,
    private readonly context: DaemonContext,
    private readonly cluster: ClusterOptions,
    readonly nodeId: string,
  ) {}

  private createNode(): void {
    this.node = new ClusterNode({
      cluster: this.cluster, id: this.nodeId, logger: this.context.logger, position: () => this.position(), state: () => this.memberState(),
    });
  }

  /** Registers in etcd and follows the election; etcd that does not answer yet is retried by the node. */
  private joinCluster(): void {
    const logger = this.context.logger;
    this.node.election.on('leader', (term: number) => this.want({ kind: 'leader', term }));
    this.node.election.on('follower', (leader?: { httpUrl: string }) => this.want(leader ? { kind: 'follower', leaderUrl: leader.httpUrl } : { kind: 'leaderless' }));
    void this.node.start().catch((error: unknown) => logger.error({ err: error }, 'cluster: joining failed'));
  }

  get address(): { ip: string; port: number } {
    return { ip: this.loaded.values.httpIp, port: this.loaded.values.httpPort };
  }

  /** The role the node runs in now. */
  get role(): RoleWish['kind'] | undefined {
    return this.current?.kind;
  }

  reloadCertificates(trigger: ReloadTrigger): Promise<ReloadOutcome> {
    if (!this.daemon) return Promise.resolve({ ok: false, error: Errors.storageClosed.create('the node is switching roles; reload again in a moment') } as ReloadOutcome);
    return this.daemon.reloadCertificates(trigger);
  }

  /** Stops the node for good: the composition, then its part in etcd (a leader resigns). Idempotent. */
  stop(cause: StopCause = { kind: 'request' }): Promise<StopResult> {
    this.stopping ??= this.shutDown(cause);
    return this.stopping;
  }

  private async shutDown(cause: StopCause): Promise<StopResult> {
    await this.switching;
    const result = this.daemon ? await this.daemon.stop(cause) : { cause };
    this.daemon = undefined;
    this.leaderTerm?.close();
    try {
      await this.node?.close();
    } catch (error) {
      this.context.logger.error({ err: error }, 'cluster: leaving etcd failed');
    }
    this.resolveStopped(result);
    return result;
  }

  private want(wish: RoleWish): void {
    this.wanted = wish;
    this.switching ??= this.switchRoles().finally(() => {
      this.switching = undefined;
    });
  }

  private async switchRoles(): Promise<void> {
    while (this.wanted && !this.stopping) {
      const wish = this.wanted;
      this.wanted = undefined;
      if (this.current && sameWish(wish, this.current)) continue;
      await this.recompose(wish);
    }
  }

  /** Closes the running composition and opens one for `wish`; a start that fails is tried again. */
  private async recompose(wish: RoleWish): Promise<void> {
    const logger = this.context.logger.child({ component: 'cluster' });
    logger.info({ from: this.current?.kind, to: wish.kind, ...(wish.kind === 'leader' ? { term: wish.term } : {}), ...(wish.kind === 'follower' ? { leaderUrl: wish.leaderUrl } : {}) }, 'cluster: switching role');
    const previous = this.daemon;
    this.daemon = undefined;
    this.current = undefined;
    this.composing = wish;
    this.node.membership.positionChanged();
    this.leaderTerm?.close();
    this.leaderTerm = undefined;
    if (previous) await previous.stop({ kind: 'request' });
    let delayMs = RETRY_START_MS;
    while (!this.stopping) {
      try {
        this.daemon = await this.compose(wish);
        this.current = wish;
        this.node.membership.positionChanged();
        return;
      } catch (error) {
        logger.error({ err: error, role: wish.kind }, 'cluster: composing the node failed; trying again');
        if (wish.kind === 'leader') {
          // A leader that cannot open its log must not hold the key: another node takes over.
          await this.node.election.resign().catch(() => undefined);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        delayMs = Math.min(2 * delayMs, RETRY_START_MS_MAX);
        if (this.wanted) return;
      }
    }
  }

  /** Starts the node for a role, and watches it: a stop nobody asked for ends the process, or recomposes after a cut. */
  private async compose(wish: RoleWish): Promise<Daemon> {
    const role = this.roleFor(wish);
    const leaderTerm = wish.kind === 'leader' ? new LeaderTerm({
      election: this.node.election, membership: this.node.membership, term: wish.term, clusterSize: this.cluster.clusterSize,
    }) : undefined;
    const context: DaemonContext = {
      ...this.context,
      clusterRole: role,
      cluster: this.node.view(),
      ...(leaderTerm ? { openStorage: async (options) => leaderTerm.gate(await this.context.openStorage(options)) } : {}),
    };
    let daemon: Daemon;
    try {
      daemon = await Daemon.start(this.loaded, context);
    } catch (error) {
      leaderTerm?.close();
      throw error;
    }
    this.leaderTerm = leaderTerm;
    // Writes made while the leader started (its default users, say) are its own; clients' wait for the quorum.
    leaderTerm?.open();
    const storage = daemon.parts.storage;
    storage.beforeAcknowledge(() => {
      this.notePosition(daemon);
      this.node?.membership.positionChanged();
    });
    this.notePosition(daemon);
    void daemon.stopped.then((result) => this.afterStop(daemon, result));
    return daemon;
  }

  private roleFor(wish: RoleWish): ClusterRole {
    const nodeId = this.nodeId;
    if (wish.kind === 'follower') return { kind: 'follower', nodeId, leaderUrl: wish.leaderUrl };
    if (wish.kind === 'leaderless') return { kind: 'leaderless', nodeId };
    return { kind: 'leader', nodeId, term: wish.term, onPosition: (id, position) => this.leaderTerm?.report(id, position) };
  }

  /**
   * A composition stopped: on a switch, nothing to do; after a cut back (the leader's log parted
   * from this one while it followed), composed again so the next open cuts it; otherwise (a
   * shutdown request, a fatal storage error) the whole node stops.
   */
  private afterStop(daemon: Daemon, result: StopResult): void {
    if (daemon !== this.daemon || this.stopping) return;
    if (result.cause.kind === 'fatal' && Errors.replicationDiverged.is(result.cause.error) && this.current) {
      const wish = this.current;
      this.daemon = undefined;
      this.current = undefined;
      this.want(wish);
      return;
    }
    this.daemon = undefined;
    void this.stop(result.cause);
  }

  /** Called after every commit: the epoch record is read again only when epoch.chk moved. */
  private notePosition(daemon: Daemon): void {
    const bytes = daemon.parts.storage.logBytes();
    const epochPosition = bytes.newestEpochPosition;
    if (epochPosition !== this.epochRead.position) this.epochRead = { position: epochPosition, number: bytes.newestEpoch()?.epochNumber ?? -1 };
    this.lastPosition = { writerCheckpoint: bytes.durableEnd, epoch: this.epochRead.number };
  }

  private position(): { writerCheckpoint: number; epoch: number } {
    return this.lastPosition;
  }

  private memberState(): ClusterMemberState {
    const current = this.current;
    if (!current) return this.composing?.kind === 'leader' ? 'PreLeader' : 'Unknown';
    if (current.kind === 'leader') return 'Leader';
    if (current.kind === 'leaderless') return 'Unknown';
    return this.daemon?.state === 'catchingup' ? 'CatchingUp' : 'Follower';
  }
}
