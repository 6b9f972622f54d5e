/**
 * The composition root of a running node: opens the storage engine, builds the services and the
 * HTTP app on top of it, listens, and tears everything down in the reverse order. Start-up and
 * shutdown are the only places that know every part.
 */
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { Errors, isSvcError, type SvcError } from '../common/errors.js';
import { buildApp, SERVED_FEATURES } from './http/app.js';
import type { ProcessLogger } from './log.js';
import { engineOptionsOf, type DaemonOptions, type LoadedOptions } from './options.js';
import { NodeInfo, type NodeState } from './services/node-info.js';
import { startSecurity, type Security } from './security/security.js';
import { StreamsService } from './services/streams.js';
import { SubscriptionsService, type SubscriptionsOptions } from './subscriptions/service.js';
import { SystemStreams } from './subscriptions/system-streams.js';
import type { ReplacementStep } from '../storage/log/chunk-replacement.js';
import { QueueMeter } from '../storage/log/meters.js';
import type { OperationsDependencies } from './http/admin-operations.js';
import { GossipService } from './services/gossip.js';
import { MetricsService } from './services/metrics.js';
import { projectionReadings } from './services/projection-readings.js';
import { nodeUrl } from './node-url.js';
import { CONSOLE_PATH } from './http/console.js';
import { optionsInfo } from './services/options-info.js';
import { connectionsMaxOf } from './services/connection-limits.js';
import { ConnectionMeter } from './services/stats-process.js';
import { StatsService } from './services/stats.js';
import { scavengeStats } from './scavenge/scavenge-stats.js';
import type { ReloadTrigger } from '../storage/disk/reload-status.js';
import { NodeCertificates, type ReloadOutcome } from './tls/node-certificates.js';
import { RedactionService } from './redaction/redaction-service.js';
import { RedactionSocket } from './redaction/socket-server.js';
import { SOCKET_FILE_NAME } from '../storage/layout.js';
import { join } from 'node:path';
import { ConsoleAssets, defaultConsoleDirectory } from './services/console-assets.js';
import { ProjectionsService, type ServiceStorage as ProjectionStorage } from './projections/projections-service.js';
import { ScavengeService } from './scavenge/scavenge-service.js';
import { openNodeScavenger } from './scavenge/open-scavenger.js';
import type { NodeStorage, OpenScavenger, OpenStorage, ScavengerSettings } from './node-storage.js';
import { Follower } from './replication/follower.js';
import type { LeaderClient } from './replication/leader-client.js';
import { ReplicationSource } from './replication/replication-source.js';
import { replicationStats } from './replication/replication-stats.js';
import type { ClusterRole } from './cluster/cluster-role.js';
import { ELECTION_RETRY_AFTER_SECONDS } from './cluster/cluster-role.js';
import type { ClusterView } from './cluster/cluster-view.js';
import { epochBefore, epochMarks, leaderChunkSize, leaderClientOf, reconcileWithLeader } from './replication/replica-start.js';
import { requestTruncation } from '../storage/log/truncation-request.js';

export type { NodeStorage, OpenScavenger, OpenStorage, OpenStorageOptions, ScavengerSettings } from './node-storage.js';

export interface DaemonContext {
  logger: ProcessLogger;
  version: string;
  openStorage: OpenStorage;
  /** The storage scavenger of the node; the engine's own unless a test injects a fault. */
  openScavenger?: OpenScavenger;
  /** Crash tests only: a chunk-switch step at which the node kills itself (killAfterSwitchStep). */
  killAfterRedactionStep?: string;
  /** The web console's files; by default this installation's, when they are built. */
  loadConsole?: () => ConsoleAssets | undefined;
  /** The persistent subscriptions' clock; a test may tick them by hand. */
  subscriptionClock?: Pick<SubscriptionsOptions, 'now' | 'tickIntervalMs'>;
  /** What the projections are given instead of the storage itself: a test may hold some writes back. */
  projectionStorage?: (storage: NodeStorage) => ProjectionStorage;
  /** A cluster member's role in this composition; undefined for a node outside a cluster. */
  clusterRole?: ClusterRole;
  /** The cluster this node is a member of (ClusterNode.view()); none for a node on its own. */
  cluster?: ClusterView;
}

/** The services a node is made of, for an embedder (or a test) that drives them directly. */
export interface NodeParts {
  storage: NodeStorage;
  streams: StreamsService;
  subscriptions: SubscriptionsService;
  security: Security;
  projections: ProjectionsService | undefined;
}

export type StopCause =
  | { kind: 'signal'; signal: NodeJS.Signals }
  | { kind: 'fatal'; error: Error }
  | { kind: 'request' };

export interface StopResult {
  cause: StopCause;
  /** Set when the node did not stop cleanly: the fatal error, or a failure while closing. */
  error?: Error;
}

const DROPPED_CONNECTIONS_LOG_INTERVAL_MS = 60_000;

const authentication = Object.freeze({ type: 'internal', properties: null });

/**
 * Testing hook, for the crash tests only: with `killAfterRedactionStep` set to a step of a chunk
 * switch (validated, renamed, switched, removed) the node SIGKILLs itself right after the first
 * redaction switch reaches it. `svcdb serve` takes it from SVC_TEST_REDACT_KILL_AFTER: nothing
 * below the commands reads the environment.
 */
function killAfterSwitchStep(step: string | undefined): ((reached: ReplacementStep) => void) | undefined {
  if (step === undefined || step === '') return undefined;
  return (reached) => {
    if (reached === step) process.kill(process.pid, 'SIGKILL');
  };
}

export class Daemon {
  private nodeState: NodeState = 'initializing';
  private closeError: Error | undefined;
  private stopping: Promise<StopResult> | undefined;
  private resolveStopped!: (result: StopResult) => void;
  private readonly app: FastifyInstance;
  private readonly connectionsMax: number;
  private redactionSocket: RedactionSocket | undefined;
  private readonly scavenge: ScavengeService;
  /** The node's services, as composed at start. */
  readonly parts: NodeParts;
  /** A replica's follower; undefined on a node that leads. */
  private readonly follower: Follower | undefined;

  /** Resolves once the node has stopped, whoever asked it to. */
  readonly stopped = new Promise<StopResult>((resolve) => {
    this.resolveStopped = resolve;
  });

  /** Opens the storage, then listens. On any failure, whatever was opened is closed again. */
  static async start(loaded: LoadedOptions, context: DaemonContext): Promise<Daemon> {
    const log = context.logger;
    const options = loaded.values;
    log.info({ version: context.version, dbPath: options.db, indexPath: options.index }, 'starting');
    // Before the storage: a certificate that cannot be served stops the start without touching the database.
    const certificates = await NodeCertificates.load(options, log.child({ component: 'tls' }));
    const role = context.clusterRole;
    const leader = leaderClientOf(role?.kind === 'follower' ? { ...options, replicaOf: role.leaderUrl } : options, () => certificates.clientTls());
    // A node that does not lead writes nothing of its own: its log is the leader's, or waits for one.
    const readOnly = leader !== undefined || role?.kind === 'leaderless';
    const chunkSizeBytes = leader && await leaderChunkSize(leader, options.db, log.child({ component: 'replication' }));
    const openStorage = () => context.openStorage({
      ...engineOptionsOf(options), replica: readOnly, ...(chunkSizeBytes ? { chunkSizeBytes } : {}),
      ...(role?.kind === 'leader' ? { epochNumberAtLeast: role.term } : {}), logger: log,
    });
    let storage = await openStorage();
    if (leader) storage = await reconcileWithLeader(storage, leader, options.db, openStorage, log.child({ component: 'replication' }));
    // The engine can stop on its own from the moment it is open (a chunk hash checked in the
    // background): its error, not the "closed" error the next call meets, is what ends the node
    // and picks the exit code.
    let fatal: Error | undefined;
    let daemon: Daemon | undefined;
    storage.onFatal((error) => {
      log.error({ err: error, code: isSvcError(error) ? error.code : undefined }, 'storage stopped');
      fatal ??= error;
      if (daemon) void daemon.stop({ kind: 'fatal', error });
    });
    let security: Security;
    let projections: ProjectionsService | undefined;
    try {
      // A replica's users and projections are the leader's: it makes none and runs none.
      const passwords = readOnly ? undefined : { admin: options.defaultAdminPassword, ops: options.defaultOpsPassword };
      security = await startSecurity(storage, passwords, log.child({ component: 'security' }), options);
      projections = readOnly ? undefined : await startProjections(context.projectionStorage?.(storage) ?? storage, options, log, security);
      if (fatal) throw fatal;
    } catch (error) {
      await projections?.close().catch((closeError: unknown) => log.error({ err: closeError }, 'stopping the projections failed'));
      await storage.close().catch((closeError: unknown) => log.error({ err: closeError }, 'closing the storage failed'));
      throw fatal ?? error;
    }
    try {
      daemon = new Daemon(options, context, storage, security, loaded, certificates, projections, leader);
      if (!readOnly) await daemon.scavenge.closeInterruptedRun();
    } catch (error) {
      await projections?.close().catch((closeError: unknown) => log.error({ err: closeError }, 'stopping the projections failed'));
      await security.close();
      await storage.close().catch((closeError: unknown) => log.error({ err: closeError }, 'closing the storage failed'));
      throw fatal ?? error;
    }
    try {
      await daemon.listen();
    } catch (error) {
      // A listen cut short by the stop a fatal storage error began fails for that error.
      throw fatal ?? error;
    }
    return daemon;
  }

  private constructor(
    private readonly options: DaemonOptions,
    private readonly context: DaemonContext,
    private readonly storage: NodeStorage,
    security: Security,
    loaded: LoadedOptions,
    private readonly certificates: NodeCertificates,
    projections: ProjectionsService | undefined,
    leader: LeaderClient | undefined,
  ) {
    const features = { ...SERVED_FEATURES, projections: projections !== undefined };
    this.follower = leader && this.followerOf(leader);
    const replicaStatus = this.follower && (() => this.follower!.status());
    const nodeInfo = new NodeInfo(context.version, features, authentication, () => this.currentState(), replicaStatus, context.cluster);
    const streams = new StreamsService(storage, security.access);
    const subscriptions = new SubscriptionsService({
      system: new SystemStreams(streams), access: security.access, follow: (options) => storage.follow(options),
      logger: context.logger.child({ component: 'subscriptions' }),
      ...context.subscriptionClock,
    });
    // Persistent subscriptions run on the leader only.
    if (!leader && context.clusterRole?.kind !== 'leaderless') subscriptions.start();
    this.parts = { storage, streams, subscriptions, security, projections };
    const connections = new ConnectionMeter();
    this.scavenge = this.scavengeService();
    const replication = new ReplicationSource(storage, context.logger.child({ component: 'replication' }));
    const operations = this.operations(loaded, connections, security, subscriptions, projections, replication);
    const { allowAnonymousEndpointAccess, allowAnonymousStreamAccess, enableTrustedAuth } = options;
    const connectionsMax = connectionsMaxOf(options.connectionsMax);
    if (connectionsMax.warning) context.logger.warn({ connectionsMax: connectionsMax.value }, connectionsMax.warning);
    this.connectionsMax = connectionsMax.value;
    this.app = buildApp({
      logger: context.logger.child({ component: 'http' }), nodeInfo, nodeState: () => this.currentState(), streams, subscriptions, operations,
      users: security.users, authenticator: security.authenticator,
      access: { allowAnonymousEndpointAccess, allowAnonymousStreamAccess, enableTrustedAuth, nodeCommonName: () => certificates.nodeCommonName() },
      https: certificates.https, disableHttpCaching: options.disableHttpCaching,
      connections: { max: connectionsMax.value, headersTimeoutMs: options.httpHeadersTimeoutMs, requestTimeoutMs: options.httpRequestTimeoutMs },
      projections,
      console: (context.loadConsole ?? (() => this.consoleAssets()))(),
      replication: { source: replication, ...(leader ? { leaderUrl: leader.url.origin } : {}), ...this.clusterRouting() },
    });
    this.logDroppedConnections();
    connections.attach(this.app.server);
    if (this.app.server instanceof tls.Server) certificates.attach(this.app.server);
    // One hook, so that the order below is the order they stop in: fastify runs its onClose hooks
    // last registered first. It runs after the in-flight requests finished.
    this.app.addHook('onClose', async () => this.closeInOrder([
      // Nothing more is written from the leader once the replica stops.
      ['the replication', () => this.follower?.stop()],
      ['the statistics', () => operations.stats.stop()],
      // Each projection finishes its page and checkpoints.
      ['the projections', () => projections?.close()],
      // Each group writes its checkpoint (its HTTP plugin may have closed it already: close is idempotent).
      ['the subscriptions', () => subscriptions.close()],
      // A switch in progress finishes, and the socket file goes with a clean stop.
      ['the redaction socket', () => this.redactionSocket?.close()],
      // A running scavenge stops at its next safe place and records that it stopped.
      ['the scavenge', () => this.scavenge.close()],
      // No request waits for a hash any more.
      ['the password hashing', () => security.close()],
    ]));
  }

  /**
   * Stops the services one after the other, each while the storage is still open (they write
   * their checkpoints and stop records), then closes the storage. A service that fails to stop
   * makes the stop unclean but does not keep the others or the storage from closing.
   */
  private async closeInOrder(services: ReadonlyArray<readonly [string, () => unknown]>): Promise<void> {
    for (const [what, close] of services) {
      try {
        await close();
      } catch (error) {
        this.closeError ??= error as Error;
        this.context.logger.error({ err: error }, `stopping ${what} failed`);
      }
    }
    await this.closeStorage();
  }

  /** What the HTTP app does for the node's cluster role: refuse writes without a leader, hear followers' positions. */
  private clusterRouting(): { leaderless?: () => SvcError; onPosition?: (nodeId: string, writerCheckpoint: number) => void } {
    const role = this.context.clusterRole;
    if (role?.kind === 'leaderless') return { leaderless: () => Errors.clusterNoLeader.create(ELECTION_RETRY_AFTER_SECONDS) };
    if (role?.kind === 'leader') return { onPosition: role.onPosition };
    return {};
  }

  /** The web console's files, when this installation has them built. */
  private consoleAssets(): ConsoleAssets | undefined {
    const directory = defaultConsoleDirectory();
    const assets = ConsoleAssets.load(directory);
    if (assets === undefined) this.context.logger.warn({ directory }, 'the web console is not built: /web is not served (npm run build builds it)');
    return assets;
  }

  /** The scavenge of this node, with every scavenge option of the node. */
  private scavengeService(): ScavengeService {
    const { options, context } = this;
    const logger = context.logger.child({ component: 'scavenge' });
    const settings: ScavengerSettings = {
      indexPath: options.index,
      pageSizeBytes: options.scavengeBackendPageSize * 1024,
      cacheSizeBytes: options.scavengeBackendCacheSize,
      hashUsersCacheCapacity: options.scavengeHashUsersCacheCapacity,
      logger,
    };
    const open = context.openScavenger ?? openNodeScavenger;
    return new ScavengeService({
      storage: this.storage, openScavenger: () => open(this.storage, settings), mergeChunks: !options.disableScavengeMerging,
      historyMaxAgeDays: options.scavengeHistoryMaxAge, nodeEndpoint: () => this.endpoint(), logger,
    });
  }

  /** `ip:port` of the HTTP server; the configured one until it listens. */
  private endpoint(): string {
    if (!this.app.server.listening) return `${this.options.httpIp}:${this.options.httpPort}`;
    const { ip, port } = this.address;
    return `${ip}:${port}`;
  }

  /** The services behind /stats, /metrics, /gossip, /info/options and /admin. */
  private operations(
    loaded: LoadedOptions, connections: ConnectionMeter, security: Security, subscriptions: SubscriptionsService, projections: ProjectionsService | undefined,
    replication: ReplicationSource,
  ): OperationsDependencies {
    const requests = new QueueMeter('HttpRequests', 'Http');
    let requestErrors = 0;
    const stats = new StatsService({
      storage: () => this.storage.stats(), requests, connections, requestErrors: () => requestErrors,
      authentication: () => security.authenticator.stats(),
      subscriptions: () => subscriptions.stats(),
      scavenge: () => scavengeStats(this.scavenge),
      replication: () => replicationStats(replication, this.follower?.status()),
      paths: [this.options.db, this.options.index],
    });
    const gossip = new GossipService({
      status: () => this.storage.status(), state: () => this.currentState(), replica: this.follower && (() => this.follower!.status()),
      following: () => replication.replicas(),
      address: () => (this.app.server.listening ? this.address : undefined),
      logger: this.context.logger.child({ component: 'gossip' }),
      cluster: this.context.cluster,
    });
    return {
      stats, gossip, requests,
      metrics: new MetricsService({
        stats: () => stats.collect(), version: this.context.version,
        projections: projections && (() => projectionReadings(projections, () => this.storage.status().readableEnd)),
      }),
      options: optionsInfo(loaded),
      onRequestError: () => void requestErrors++,
      logRequests: this.options.logHttpRequests,
      shutdown: () => void this.stop({ kind: 'request' }),
      mergeIndexes: () => this.storage.mergeIndexes(),
      scavenge: this.scavenge,
      resign: this.context.cluster && (() => this.context.cluster!.resign()),
      reloadConfig: async () => {
        const outcome = await this.reloadCertificates('http');
        if (!outcome.ok) throw outcome.error;
      },
    };
  }

  /** Reloads the certificates from their files; a failure leaves the ones in service as they were. */
  reloadCertificates(trigger: ReloadTrigger): Promise<ReloadOutcome> {
    return this.certificates.reload(trigger);
  }

  get state(): NodeState {
    return this.currentState();
  }

  /**
   * The node's state; a replica or cluster follower that runs says whether it follows with all
   * there is or catches up, and a cluster member that knows no leader says so.
   */
  private currentState(): NodeState {
    if (this.nodeState !== 'leader') return this.nodeState;
    const role = this.context.clusterRole?.kind;
    if (role === 'leaderless') return 'unknown';
    if (!this.follower) return 'leader';
    if (this.follower.status().state !== 'ReadOnlyReplica') return 'catchingup';
    return role === 'follower' ? 'follower' : 'readonlyreplica';
  }

  /** The follower of a replica: it writes the leader's log through the replica's appender. */
  private followerOf(leader: LeaderClient): Follower {
    const logger = this.context.logger.child({ component: 'replication' });
    return new Follower({
      leader, appender: this.storage.replicaAppender(), logger,
      // A cluster follower reports its durable position: the leader acknowledges through it.
      ...(this.context.clusterRole ? { nodeId: this.context.clusterRole.nodeId } : {}),
      epochs: () => epochMarks(this.storage.logBytes()),
      chunkSizeBytes: this.storage.logBytes().chunkSize,
      diverged: (position) => void this.cutBackAndStop(position, logger),
    });
  }

  /**
   * The leader's log parted from this replica's while it ran: truncate.chk is set (an open log
   * cannot be cut) and the node stops with the coded error; the next start cuts the log back.
   */
  private async cutBackAndStop(position: number, logger: ProcessLogger): Promise<void> {
    const error = Errors.replicationDiverged.create(`it holds records past position ${position}, which the leader does not have; start the replica again to cut them`);
    try {
      await requestTruncation(this.options.db, position, epochBefore(epochMarks(this.storage.logBytes()), position));
    } catch (cause) {
      logger.error({ err: cause }, 'could not set truncate.chk');
    }
    void this.stop({ kind: 'fatal', error });
  }

  /** The address the HTTP server is bound to (the actual port when --http-port is 0). */
  get address(): { ip: string; port: number } {
    const address = this.app.server.address() as AddressInfo;
    return { ip: address.address, port: address.port };
  }

  /** Stops accepting requests, lets in-flight ones finish, closes the storage. Idempotent. */
  stop(cause: StopCause = { kind: 'request' }): Promise<StopResult> {
    this.stopping ??= this.shutDown(cause);
    return this.stopping;
  }

  /** With --enable-unix-socket: <db>/svcdb.sock, serving the redaction operations and nothing else. */
  private async startSocket(): Promise<void> {
    if (!this.options.enableUnixSocket) return;
    const logger = this.context.logger.child({ component: 'redaction' });
    const service = new RedactionService(this.storage, this.options.db, logger, killAfterSwitchStep(this.context.killAfterRedactionStep));
    this.redactionSocket = await RedactionSocket.start(join(this.options.db, SOCKET_FILE_NAME), service, logger);
  }

  private async listen(): Promise<void> {
    const { httpIp, httpPort } = this.options;
    try {
      await this.startSocket();
      await this.app.listen({ host: httpIp, port: httpPort });
    } catch (error) {
      const listenError = toListenError(error, `${httpIp}:${httpPort}`);
      await this.stop({ kind: 'fatal', error: listenError });
      throw listenError;
    }
    // A fatal storage error while fastify was starting has begun the stop already.
    if (this.stopping) return;
    this.nodeState = 'leader';
    this.follower?.start();
    const { ip, port } = this.address;
    const protocol = this.certificates.https ? 'https' : 'http';
    const url = nodeUrl(protocol, ip, port);
    // Operators and tests look for this line; its msg and fields are stable.
    this.context.logger.info({
      address: ip, port, protocol, url, consoleUrl: `${url}${CONSOLE_PATH}`, dbPath: this.options.db, connectionsMax: this.connectionsMax,
    }, 'listening');
  }

  /** Connections closed at the cap are counted and logged at most once a minute, not one line each. */
  private logDroppedConnections(): void {
    let dropped = 0;
    let lastLoggedMs = Number.NEGATIVE_INFINITY;
    this.app.server.on('drop', () => {
      dropped++;
      const nowMs = Date.now();
      if (nowMs - lastLoggedMs < DROPPED_CONNECTIONS_LOG_INTERVAL_MS) return;
      lastLoggedMs = nowMs;
      this.context.logger.warn({ connectionsMax: this.connectionsMax, droppedTotal: dropped }, 'connection closed: connections-max reached');
    });
  }

  private async shutDown(cause: StopCause): Promise<StopResult> {
    const log = this.context.logger;
    this.nodeState = 'shuttingdown';
    log.info({ cause: describe(cause) }, 'stopping');
    try {
      await this.app.close();
    } catch (error) {
      this.closeError ??= error as Error;
    }
    this.nodeState = 'shutdown';
    const result: StopResult = { cause };
    const error = cause.kind === 'fatal' ? cause.error : this.closeError;
    if (error) result.error = error;
    log.info({ cause: describe(cause), clean: !error }, 'stopped');
    this.resolveStopped(result);
    return result;
  }

  private async closeStorage(): Promise<void> {
    try {
      await this.storage.close();
    } catch (error) {
      this.closeError = error as Error;
      this.context.logger.error({ err: error }, 'closing the storage failed');
    }
  }
}

/** With --run-projections System or All: the projections, loaded and the enabled ones started. */
async function startProjections(storage: ProjectionStorage, options: DaemonOptions, log: ProcessLogger, security: Security): Promise<ProjectionsService | undefined> {
  if (options.runProjections === 'None') return undefined;
  const { runProjections, startStandardProjections, projectionExecutionTimeout, projectionMemoryLimitMb } = options;
  const projections = new ProjectionsService(storage, { runProjections, startStandardProjections, projectionExecutionTimeout, projectionMemoryLimitMb }, log.child({ component: 'projections' }), security.access);
  await projections.start();
  return projections;
}

function describe(cause: StopCause): string {
  if (cause.kind === 'signal') return cause.signal;
  if (cause.kind === 'fatal') return isSvcError(cause.error) ? cause.error.code : 'fatal error';
  return 'request';
}

const listenFailures = new Set(['EADDRINUSE', 'EADDRNOTAVAIL', 'EACCES']);

function toListenError(error: unknown, address: string): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === undefined || !listenFailures.has(code)) return error as Error;
  return Errors.httpListen.create(address, code === 'EADDRINUSE' ? 'the address is in use' : code);
}
