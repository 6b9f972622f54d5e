/**
 * A real node in the test process: a real engine in a temp directory, its users and ACLs, and
 * the real fastify app listening on port 0. Closed (app, then engine) at teardown.
 */
import type { Test } from 'tap';
import pino from 'pino';
import type { AccessOptions } from '../../src/daemon/http/authentication.js';
import { buildApp, SERVED_FEATURES } from '../../src/daemon/http/app.js';
import { DEFAULT_SECURITY_LIMITS, startSecurity, type Security, type SecurityLimits } from '../../src/daemon/security/security.js';
import { NodeInfo } from '../../src/daemon/services/node-info.js';
import { StreamsService } from '../../src/daemon/services/streams.js';
import type { ConsoleAssets } from '../../src/daemon/services/console-assets.js';
import { SubscriptionsService } from '../../src/daemon/subscriptions/service.js';
import { SystemStreams } from '../../src/daemon/subscriptions/system-streams.js';
import type { Engine } from '../../src/storage/engine.js';
import type { EngineOptions } from '../../src/storage/engine-options.js';
import { adminFetch } from './auth.js';
import { openEngine, tempDirectory } from './engine.js';

export interface TestNode {
  url: string;
  engine: Engine;
  streams: StreamsService;
  subscriptions: SubscriptionsService;
  security: Security;
}

export interface TestNodeOptions {
  engine?: Partial<EngineOptions>;
  access?: Partial<AccessOptions>;
  /** Bounds of password verification; the options' defaults otherwise. */
  security?: Partial<SecurityLimits>;
  disableHttpCaching?: boolean;
  /** The web console's files to serve at /web; none by default. */
  console?: ConsoleAssets;
  /** The clock of persistent subscriptions, and 0 to tick them by hand (`subscriptions.tick()`). */
  subscriptions?: { now?: () => number; tickIntervalMs?: number };
}

const silent = pino({ level: 'silent' });

/** What the app needs besides its node info: a real engine in a temp directory, with its users and ACLs. */
export async function nodeServices(t: Test, options: TestNodeOptions = {}) {
  const engine = await openEngine(tempDirectory(t), options.engine);
  const security = await startSecurity(engine, { admin: 'changeit', ops: 'changeit' }, silent, { ...DEFAULT_SECURITY_LIMITS, ...options.security });
  // Teardowns run in the order registered: startNode's app has stopped by then, and no request waits for a hash.
  t.teardown(() => security.close());
  return {
    engine, security,
    streams: new StreamsService(engine, security.access),
    users: security.users,
    authenticator: security.authenticator,
    access: { allowAnonymousEndpointAccess: false, allowAnonymousStreamAccess: false, enableTrustedAuth: false, ...options.access },
  };
}

export async function startNode(t: Test, options: TestNodeOptions = {}): Promise<TestNode> {
  // Registered first so that it runs first: the app stops before its engine closes.
  let app: ReturnType<typeof buildApp> | undefined;
  t.teardown(async () => app?.close());
  const services = await nodeServices(t, options);
  const { engine, streams, security } = services;
  const subscriptions = new SubscriptionsService({
    system: new SystemStreams(streams), access: security.access, follow: (consumer) => engine.follow(consumer), logger: silent,
    ...options.subscriptions,
  });
  subscriptions.start();
  const nodeInfo = new NodeInfo('0.0.0-test', SERVED_FEATURES, { type: 'internal', properties: null }, () => 'leader');
  app = buildApp({ logger: silent, nodeInfo, nodeState: () => 'leader', ...services, subscriptions, disableHttpCaching: options.disableHttpCaching, console: options.console });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, engine, streams, subscriptions, security };
}

/** A body for fetch: bytes as a plain Uint8Array view of them (fetch's types take no Buffer). */
export function requestBody(body: string | Buffer): string | Uint8Array<ArrayBuffer> {
  return typeof body === 'string' ? body : new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.length);
}

/** A raw single-event append with the usual headers, as the default admin unless they say otherwise. */
export function postEvent(url: string, body: string | Buffer, headers: Record<string, string>): Promise<Response> {
  return adminFetch(url, { method: 'POST', body: requestBody(body), headers, redirect: 'manual' });
}
