/**
 * On a read-only replica, what only the leader may do is answered `307 Temporary Redirect` with
 * `Location` at the same path and query on the leader: writes, deletes, metadata writes, users,
 * persistent subscriptions and projections (every POST, PUT, PATCH and DELETE), and reads that
 * ask for the leader with `Svc-RequireLeader: true`. Administrative operations (`/admin/`) act on
 * the node that receives them, as do gossip and replication. A 307 keeps the method and body.
 * A write sent with `Svc-RequireLeader: false` is forwarded to the leader instead (leader-forwarding.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { SvcError } from '../../common/errors.js';
import { forwardToLeader } from './leader-forwarding.js';

export const REQUIRE_LEADER_HEADER = 'svc-requireleader';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Paths served by whichever node receives them. */
const NODE_LOCAL_PREFIXES = ['/admin/', '/replication/', '/gossip'];
/** Reads that `Svc-RequireLeader: true` sends to the leader. */
const LEADER_READ_PREFIXES = ['/streams/', '/subscriptions', '/projections', '/users'];

function leaderOnly(method: string, url: string, requireLeader: string | string[] | undefined): boolean {
  if (NODE_LOCAL_PREFIXES.some((prefix) => url.startsWith(prefix))) return false;
  if (WRITE_METHODS.has(method)) return true;
  const asked = typeof requireLeader === 'string' && requireLeader.trim().toLowerCase() === 'true';
  return asked && (method === 'GET' || method === 'HEAD') && LEADER_READ_PREFIXES.some((prefix) => url.startsWith(prefix));
}

/** `leaderUrl`: the leader's origin (no credentials), as --replica-of names it. */
export function redirectToLeader(app: FastifyInstance, leaderUrl: string): void {
  const origin = new URL(leaderUrl).origin;
  app.addHook('onRequest', (request, reply, done) => {
    const requireLeader = request.headers[REQUIRE_LEADER_HEADER];
    if (!leaderOnly(request.method, request.url, requireLeader)) {
      done();
      return;
    }
    if (typeof requireLeader === 'string' && requireLeader.trim().toLowerCase() === 'false') {
      forwardToLeader(request, reply, origin);
      return;
    }
    void reply.code(307).header('location', `${origin}${request.url}`).header('cache-control', 'no-store').send();
  });
}

/**
 * On a cluster member that knows no leader (an election is under way): what only the leader may
 * do is refused with `refusal()` (a coded 503 with Retry-After); reads are served as they are.
 */
export function refuseLeaderOnly(app: FastifyInstance, refusal: () => SvcError): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (leaderOnly(request.method, request.url, request.headers[REQUIRE_LEADER_HEADER])) done(refusal());
    else done();
  });
}
