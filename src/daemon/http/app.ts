/**
 * The fastify application: one error handler, one not-found handler, one plugin per resource.
 * Plugins only adapt services to routes; the services arrive ready-made from the composition root.
 */
import type { SecureContextOptions } from 'node:tls';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { Errors, type SvcError } from '../../common/errors.js';
import { STREAM_NAME_BYTES_MAX } from '../../storage/streams/request-checks.js';
import type { NodeFeatures, NodeInfo, NodeState } from '../services/node-info.js';
import { clientErrorHandler } from './client-errors.js';
import { errorHandler, frameworkErrorHandler, notFoundHandler } from './errors.js';
import { infoRoutes } from './info.js';
import { registerOperations, type OperationsDependencies } from './admin-operations.js';
import { pingRoutes } from './ping.js';
import { forbidCaching } from './streams/caching.js';
import { addCorsHeaders } from './cors.js';
import { redirectTrailingSlash } from './trailing-slash.js';
import { readEmptyBodiesAsNone } from './empty-bodies.js';
import { refuseCrossSiteChanges } from './cross-site.js';
import { limitBodies } from './body-deadline.js';
import { capConnections } from './connection-cap.js';
import { checkRightsBeforeFormat } from './rights-before-format.js';
import { streamsRoutes } from './streams/plugin.js';
import type { StreamsService } from '../services/streams.js';
import type { UsersService } from '../services/users.js';
import type { Authenticator } from '../security/authenticator.js';
import { addAuthentication, type AccessOptions } from './authentication.js';
import { usersRoutes } from './users.js';
import { consoleRoutes } from './console.js';
import type { ConsoleAssets } from '../services/console-assets.js';
import { subscriptionsRoutes } from './subscriptions/plugin.js';
import { offerSubscriptionGroups } from './subscriptions/stream-groups.js';
import type { SubscriptionsService } from '../subscriptions/service.js';
import { projectionsRoutes } from './projections.js';
import type { ProjectionsService } from '../projections/projections-service.js';
import type { ReplicationSource } from '../replication/replication-source.js';
import { redirectToLeader, refuseLeaderOnly } from './leader-redirects.js';
import { replicationRoutes, type PositionSink } from './replication.js';

export interface AppDependencies {
  logger: FastifyBaseLogger;
  nodeInfo: NodeInfo;
  /** Read on every request so a node that is shutting down refuses new work with a coded error. */
  nodeState: () => NodeState;
  streams: StreamsService;
  /** Persistent subscriptions; without them every `/subscriptions` path is 404. */
  subscriptions?: SubscriptionsService;
  users: UsersService;
  authenticator: Authenticator;
  access: AccessOptions;
  /** The projections API; absent with --run-projections None, and then every projection path is 404. */
  projections?: ProjectionsService;
  /** Stats, metrics, gossip, options and admin commands; tests of other parts may leave them out. */
  operations?: OperationsDependencies;
  /** The node's certificate, key and trusted roots: with them the app serves HTTPS, without plain HTTP. */
  https?: SecureContextOptions;
  /** --disable-http-caching: every reply says no-cache. */
  disableHttpCaching?: boolean;
  /** --connections-max, --http-headers-timeout-ms and --http-request-timeout-ms; without them Node's defaults apply. */
  connections?: ConnectionLimits;
  /** The web console's files; without them nothing is served at `/web`. */
  console?: ConsoleAssets;
  /**
   * The replication endpoint; with `leaderUrl` (a read-only replica) what only the leader does is
   * redirected there; with `leaderless` (a cluster member during an election) it is refused;
   * `onPosition` hears the durable positions the followers report (a cluster leader).
   */
  replication?: { source: ReplicationSource; leaderUrl?: string; leaderless?: () => SvcError; onPosition?: PositionSink };
}

export interface ConnectionLimits {
  /** Connections open at once, shared out among client addresses (connection-cap.ts). */
  max: number;
  /** A connection that has not sent a request's headers within this is answered 408 and closed. */
  headersTimeoutMs: number;
  /** A request whose body has not all arrived within this of its start is answered 408 and closed. */
  requestTimeoutMs: number;
}

/**
 * The request timeout in force: never shorter than the header timeout, since Node swaps the two
 * when the request timeout is the shorter one.
 */
function requestTimeoutOf(limits: ConnectionLimits): number {
  return Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs);
}

/** Node's own timeouts, in force when the app is built without connection limits. */
const NODE_TIMEOUTS = { headersTimeoutMs: 60_000, requestTimeoutMs: 300_000 };

/** How often the server looks for connections past their header timeout, at most. */
const CONNECTIONS_CHECK_INTERVAL_MS_MAX = 1000;

/**
 * Closes connections that never send a request: Node's header timeout answers them 408 and
 * closes them (kept-alive connections between requests are left to the keep-alive timeout), and
 * a TLS connection must finish its handshake as soon.
 */
function limitConnections(server: FastifyInstance['server'], limits: ConnectionLimits): void {
  capConnections(server, limits.max);
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = requestTimeoutOf(limits);
  // Node looks for expired connections only every 30 s by default, which would keep an idle
  // connection many times its timeout. Read when the server starts listening.
  (server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval =
    Math.min(CONNECTIONS_CHECK_INTERVAL_MS_MAX, Math.ceil(limits.headersTimeoutMs / 2));
}

/**
 * The optional parts of the API this app serves, for `/info`: the streams API (Atom feeds) and
 * the users API are registered below on every node; projections only with --run-projections
 * System or All (the composition root sets the flag).
 */
export const SERVED_FEATURES: NodeFeatures = Object.freeze({ projections: false, userManagement: true, atomPub: true });

export function buildApp(dependencies: AppDependencies): FastifyInstance {
  const { logger, nodeState, https, connections } = dependencies;
  const app = Fastify({
    // null makes fastify create a plain HTTP server.
    // A client certificate is asked for, never required: a node presents one to be let in as a
    // node (http/node-peer.ts), everyone else sends none and logs in as before.
    https: https ? { ...https, handshakeTimeout: connections?.headersTimeoutMs, requestCert: true, rejectUnauthorized: false } : null,
    loggerInstance: logger,
    // Stream names may be up to 1,000 bytes, which a path carries percent-encoded (up to 3 chars a byte).
    routerOptions: { maxParamLength: 3 * STREAM_NAME_BYTES_MAX + 100 },
    // One log line per request would dominate the log and the CPU under load; errors are logged
    // by the error handler instead.
    logController: new LogController({ disableRequestLogging: true }),
    // fastify's own 503 body has no error code; the onRequest hook below answers instead.
    return503OnClosing: false,
    frameworkErrors: (error, request, reply) => void frameworkErrorHandler(error, request, reply),
    clientErrorHandler: clientErrorHandler(logger, connections ? { ...connections, requestTimeoutMs: requestTimeoutOf(connections) } : NODE_TIMEOUTS),
  });

  if (connections) limitConnections(app.server, connections);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  // Callback hooks: they run on every request, and an async one costs a promise each time.
  app.addHook('onRequest', (_request, reply, done) => {
    const state = nodeState();
    if (state !== 'shuttingdown' && state !== 'shutdown') {
      done();
      return;
    }
    reply.header('connection', 'close');
    done(Errors.nodeShuttingDown.create());
  });
  // A request that was in flight when the stop began ends its connection with its reply: a kept-alive
  // connection would otherwise hold the stop until its idle timeout (72 s in fastify).
  app.addHook('onSend', (_request, reply, payload, done) => {
    const state = nodeState();
    if (state === 'shuttingdown' || state === 'shutdown') reply.header('connection', 'close');
    done(null, payload);
  });

  registerRoutes(app, dependencies);
  return app;
}

function registerRoutes(app: FastifyInstance, dependencies: AppDependencies): void {
  const { nodeInfo, streams, subscriptions, projections, users, authenticator, access, operations, disableHttpCaching } = dependencies;
  addCorsHeaders(app);
  if (disableHttpCaching) forbidCaching(app);
  refuseCrossSiteChanges(app);
  limitBodies(app);
  redirectTrailingSlash(app);
  readEmptyBodiesAsNone(app);
  // Before authentication: the leader checks the credentials the client sends it again.
  if (dependencies.replication?.leaderUrl) redirectToLeader(app, dependencies.replication.leaderUrl);
  if (dependencies.replication?.leaderless) refuseLeaderOnly(app, dependencies.replication.leaderless);
  addAuthentication(app, authenticator, access);
  checkRightsBeforeFormat(app, streams, users);
  if (operations) registerOperations(app, operations);
  app.register(pingRoutes);
  // Before the streams plugin: a stream's description document names its groups.
  if (subscriptions) offerSubscriptionGroups(app, subscriptions);
  app.register(streamsRoutes, { service: streams });
  if (subscriptions) app.register(subscriptionsRoutes, { subscriptions, streams });
  app.register(infoRoutes, { nodeInfo });
  app.register(usersRoutes, { users });
  if (projections) app.register(projectionsRoutes, { projections, logEnd: () => streams.logEnd });
  if (dependencies.console) app.register(consoleRoutes, { assets: dependencies.console });
  if (dependencies.replication) app.register(replicationRoutes, { source: dependencies.replication.source, onPosition: dependencies.replication.onPosition });
}
