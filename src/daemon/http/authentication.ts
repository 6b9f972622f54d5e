/**
 * Who may call which endpoint, decided in one place. Every route gets an onRequest hook when it
 * is registered, with its access level baked in: the hook authenticates HTTP Basic credentials
 * (a cache hit stays synchronous) and refuses what the level does not allow. Stream ACLs are
 * checked further in, by the streams service; users' "admin or self" rules by the users service.
 */
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { Errors } from '../../common/errors.js';
import type { Authenticator } from '../security/authenticator.js';
import { parseTrustedAuth, TRUSTED_AUTH_HEADER } from '../security/trusted-auth.js';
import { ADMINS_GROUP, OPS_GROUP } from '../security/user-record.js';
import type { Principal } from '../services/stream-access.js';
import { decodeHeaderText } from './header-text.js';
import { isNodePeer, NODE_PRINCIPAL } from './node-peer.js';
import { decoratePrincipal, setPrincipal } from './principal.js';

/**
 * - anonymous: anyone (`/ping`, `/info`, `GET /gossip`, CORS preflights, the web console's files and
 *   the root and `GET /projections` that send browsers there: the console asks the API for
 *   everything with credentials, and a browser's address bar sends none)
 * - user: any authenticated user
 * - operator: `$admins` and `$ops` (admin commands, managing subscription groups, `POST /gossip`, replication)
 * - streams: a user, or anyone when anonymous stream access is on (ACLs decide further)
 * - endpoint: a user, or anyone when anonymous endpoint access is on (`/stats`, `/metrics`)
 */
export type EndpointAccess = 'anonymous' | 'user' | 'operator' | 'streams' | 'endpoint';

export interface AccessOptions {
  allowAnonymousEndpointAccess: boolean;
  allowAnonymousStreamAccess: boolean;
  /** Believe `Svc-TrustedAuth` (security/trusted-auth.ts) instead of asking for credentials. */
  enableTrustedAuth: boolean;
  /** The common name that lets a peer in as a node by its TLS client certificate (http/node-peer.ts); undefined without TLS. */
  nodeCommonName?: () => string | undefined;
}

const ANONYMOUS_PATHS = new Set(['/ping', '/info', '/gossip', '/', '/web']);
const OPERATOR_PATHS = new Set(['/info/options']);
/**
 * The replication endpoint: for other nodes, which present their node certificate over TLS or
 * log in as a user of `$ops` or `$admins`.
 */
const REPLICATION_PREFIX = '/replication/';
// Reading the cluster view is open to all; an update is another node's word about the cluster.
const GOSSIP_PATH = '/gossip';
/** Answered by a redirect to the console's projections page. */
const CONSOLE_REDIRECT_PATH = '/projections';

/** Managing subscription groups and replaying parked messages is for operators; consuming is for users. */
const SUBSCRIPTION_GROUP_PATH = '/subscriptions/:stream/:group';
const SUBSCRIPTION_REPLAY_PATH = '/subscriptions/:stream/:group/replayParked';

function managesSubscriptions(method: string, url: string): boolean {
  if (url === SUBSCRIPTION_GROUP_PATH) return method === 'PUT' || method === 'POST' || method === 'DELETE';
  return url === SUBSCRIPTION_REPLAY_PATH && method === 'POST';
}

export function endpointAccess(method: string, url: string): EndpointAccess {
  if (method === 'POST' && url === GOSSIP_PATH) return 'operator';
  if (method === 'OPTIONS' || ANONYMOUS_PATHS.has(url) || url.startsWith('/web/')) return 'anonymous';
  if ((method === 'GET' || method === 'HEAD') && url === CONSOLE_REDIRECT_PATH) return 'anonymous';
  if (OPERATOR_PATHS.has(url) || url.startsWith('/admin/') || url.startsWith(REPLICATION_PREFIX) || managesSubscriptions(method, url)) return 'operator';
  if (url.startsWith('/streams/')) return 'streams';
  if (url === '/stats' || url.startsWith('/stats/') || url === '/metrics') return 'endpoint';
  return 'user';
}

export function isOperator(principal: Principal): boolean {
  return principal.groups.includes(ADMINS_GROUP) || principal.groups.includes(OPS_GROUP);
}

function anonymousAllowed(access: EndpointAccess, options: AccessOptions): boolean {
  return access === 'anonymous'
    || (access === 'streams' && options.allowAnonymousStreamAccess)
    || (access === 'endpoint' && options.allowAnonymousEndpointAccess);
}

function authorize(access: EndpointAccess, principal: Principal, request: FastifyRequest): Error | undefined {
  if (access !== 'operator' || isOperator(principal)) return undefined;
  return Errors.accessDenied.create(`user ${principal.name}`, `use ${request.method} ${request.url}`, `${ADMINS_GROUP}, ${OPS_GROUP}`);
}

function authenticationHook(access: EndpointAccess, authenticator: Authenticator, options: AccessOptions, forNodes: boolean): onRequestHookHandler {
  const allowsAnonymous = anonymousAllowed(access, options);
  const trusted = options.enableTrustedAuth;
  const nodeCommonName = forNodes ? options.nodeCommonName : undefined;
  // Callback style: it runs on every request, and an async hook costs a promise each time.
  return (request, _reply, done) => {
    // A node's certificate comes before credentials: it is what nodes log in with.
    if (nodeCommonName && isNodePeer(request.raw.socket, nodeCommonName())) {
      setPrincipal(request, NODE_PRINCIPAL);
      done();
      return;
    }
    const header = request.headers.authorization;
    const asserted = trusted ? request.headers[TRUSTED_AUTH_HEADER] : undefined;
    if ((header === undefined && asserted === undefined) || access === 'anonymous') {
      done(allowsAnonymous ? undefined : Errors.authRequired.create(`use ${request.method} ${request.url}`));
      return;
    }
    const admit = (principal: Principal) => {
      setPrincipal(request, principal);
      done(authorize(access, principal, request));
    };
    let result: Principal | Promise<Principal>;
    try {
      // A trusted proxy's assertion comes before credentials: the proxy already checked them.
      result = typeof asserted === 'string' ? parseTrustedAuth(decodeHeaderText(asserted, 'Svc-TrustedAuth')) : authenticator.authenticate(header!, request.raw.socket, request.raw.socket.remoteAddress);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (result instanceof Promise) result.then(admit, done);
    else admit(result);
  };
}

/** Gives every route registered from now on its access check; call before registering routes. */
export function addAuthentication(app: FastifyInstance, authenticator: Authenticator, options: AccessOptions): void {
  decoratePrincipal(app);
  app.addHook('onRoute', (route) => {
    const hook = authenticationHook(endpointAccess(route.method as string, route.url), authenticator, options, route.url.startsWith(REPLICATION_PREFIX));
    const existing = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [hook, ...existing];
  });
}
