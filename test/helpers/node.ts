/**
 * A real node in the test process, composed as `svcdb serve` composes it (Daemon.start): a real
 * engine in a temp directory with small chunks, its users and ACLs, subscriptions, scavenge,
 * projections when asked, and the fastify app listening on port 0. Stopped at teardown in the
 * daemon's own order (services, then the engine), before its directory is removed.
 */
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Test } from 'tap';
import pino from 'pino';
import type { RawValue } from '../../src/common/options/load.js';
import type { OptionKey } from '../../src/common/options/schema.js';
import { Daemon, type DaemonContext } from '../../src/daemon/daemon.js';
import { buildApp, SERVED_FEATURES } from '../../src/daemon/http/app.js';
import type { AccessOptions } from '../../src/daemon/http/authentication.js';
import type { PositionSink } from '../../src/daemon/http/replication.js';
import { ReplicationSource } from '../../src/daemon/replication/replication-source.js';
import { NodeInfo } from '../../src/daemon/services/node-info.js';
import { daemonOptions } from '../../src/daemon/options.js';
import type { ServiceStorage } from '../../src/daemon/projections/projections-service.js';
import type { ClusterView } from '../../src/daemon/cluster/cluster-view.js';
import type { Security, SecurityLimits } from '../../src/daemon/security/security.js';
import type { StreamsService } from '../../src/daemon/services/streams.js';
import type { ConsoleAssets } from '../../src/daemon/services/console-assets.js';
import type { SubscriptionsService } from '../../src/daemon/subscriptions/service.js';
import { Engine } from '../../src/storage/engine.js';
import type { EngineOptions } from '../../src/storage/engine-options.js';
import { adminFetch } from './auth.js';
import { SMALL, tempDirectory } from './engine.js';

export interface TestNode {
  url: string;
  engine: Engine;
  streams: StreamsService;
  subscriptions: SubscriptionsService;
  security: Security;
}

export interface TestNodeOptions {
  /** Engine settings over the tests' small ones; with dbPath and indexPath, the node runs on those directories. */
  engine?: Partial<EngineOptions>;
  access?: Partial<AccessOptions>;
  /** Bounds of password verification; the options' defaults otherwise. */
  security?: Partial<SecurityLimits>;
  disableHttpCaching?: boolean;
  /** The web console's files to serve at /web; none by default. */
  console?: ConsoleAssets;
  /** The clock of persistent subscriptions, and 0 to tick them by hand (`subscriptions.tick()`). */
  subscriptions?: { now?: () => number; tickIntervalMs?: number };
  /** Any other option of `svcdb serve` (runProjections, say). */
  options?: Partial<Record<OptionKey, RawValue>>;
  /** What the projections are given instead of the engine: a test that holds some writes back wraps it. */
  projectionStorage?: (engine: Engine) => ServiceStorage;
  /** startApp: serve the replication endpoint too, its position reports going to this sink. */
  onPosition?: PositionSink;
  /** The cluster the node is a member of (ClusterNode.view()). */
  cluster?: ClusterView;
}

const silent = pino({ level: 'silent' });

/** The node's options: the tests' small engine, port 0, and what the test asks for. */
function nodeOptions(directory: string, options: TestNodeOptions) {
  const given: Partial<Record<OptionKey, RawValue | undefined>> = {
    db: options.engine?.dbPath ?? join(directory, 'db'),
    index: options.engine?.indexPath ?? join(directory, 'index'),
    httpIp: '127.0.0.1', httpPort: 0,
    chunkSize: SMALL.chunkSizeBytes, maxMemTableSize: SMALL.memTableEntriesMax, streamExistenceFilterSize: SMALL.existenceFilterSizeBytes,
    verifyChunks: 'blocking',
    disableHttpCaching: options.disableHttpCaching,
    ...options.access, ...options.security, ...options.options,
  };
  const values = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) as Partial<Record<OptionKey, RawValue>>;
  return daemonOptions(values, directory);
}

export async function startNode(t: Test, options: TestNodeOptions = {}): Promise<TestNode & { daemon: Daemon }> {
  // Registered before the directory's teardown, so that it runs first.
  let daemon: Daemon | undefined;
  t.teardown(async () => void await daemon?.stop());
  const directory = tempDirectory(t);
  let engine!: Engine;
  const { projectionStorage } = options;
  const context: DaemonContext = {
    logger: silent, version: '0.0.0-test',
    openStorage: async (opened) => (engine = await Engine.open({ ...opened, ...options.engine })),
    loadConsole: () => options.console,
    ...(options.subscriptions && { subscriptionClock: options.subscriptions }),
    ...(projectionStorage && { projectionStorage: () => projectionStorage(engine) }),
    ...(options.cluster && { cluster: options.cluster }),
  };
  daemon = await Daemon.start(nodeOptions(directory, options), context);
  const { streams, subscriptions, security } = daemon.parts;
  return { url: `http://127.0.0.1:${daemon.address.port}`, daemon, engine, streams, subscriptions, security };
}

/** The access settings of an app of the test's own: none anonymous, no trusted auth, unless asked. */
function appAccess(options: TestNodeOptions): AccessOptions {
  return { allowAnonymousEndpointAccess: false, allowAnonymousStreamAccess: false, enableTrustedAuth: false, ...options.access };
}

/**
 * What an app of the test's own needs besides its node info, taken from a started node: its
 * engine, users and ACLs, and `options.access` for the app alone (the node is started without
 * it). For tests of the HTTP app with routes or access settings of their own.
 */
export async function nodeServices(t: Test, options: TestNodeOptions = {}) {
  const node = await startNode(t, { ...options, access: undefined });
  const { engine, security, streams } = node;
  return {
    engine, security, streams,
    users: security.users,
    authenticator: security.authenticator,
    access: appAccess(options),
  };
}

/**
 * The HTTP app alone, on port 0, over a started node's services, with access settings the node's
 * options refuse: trusted auth over plain HTTP (`svcdb serve` requires TLS for it). For tests of
 * how the app authenticates, not of the node.
 */
export async function startApp(t: Test, options: TestNodeOptions = {}): Promise<TestNode & { app: FastifyInstance }> {
  // Registered before the node's teardown, so that the app stops first.
  let app: FastifyInstance | undefined;
  t.teardown(async () => app?.close());
  const node = await startNode(t, { ...options, access: undefined });
  const { streams, subscriptions, security } = node;
  const nodeInfo = new NodeInfo('0.0.0-test', SERVED_FEATURES, { type: 'internal', properties: null }, () => 'leader');
  const { onPosition } = options;
  const replication = onPosition && { source: new ReplicationSource(node.engine, silent), onPosition };
  app = buildApp({
    logger: silent, nodeInfo, nodeState: () => 'leader', streams, subscriptions, users: security.users, authenticator: security.authenticator, access: appAccess(options),
    ...(replication && { replication }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, app, engine: node.engine, streams, subscriptions, security };
}

/** A body for fetch: bytes as a plain Uint8Array view of them (fetch's types take no Buffer). */
export function requestBody(body: string | Buffer): string | Uint8Array<ArrayBuffer> {
  return typeof body === 'string' ? body : new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.length);
}

/** A raw single-event append with the usual headers, as the default admin unless they say otherwise. */
export function postEvent(url: string, body: string | Buffer, headers: Record<string, string>): Promise<Response> {
  return adminFetch(url, { method: 'POST', body: requestBody(body), headers, redirect: 'manual' });
}
