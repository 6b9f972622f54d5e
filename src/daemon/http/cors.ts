/**
 * Cross-origin headers on every reply, so browser clients can use the API and read the
 * headers that matter (Location, Svc-Position, Svc-CurrentVersion).
 */
import type { FastifyInstance } from 'fastify';

const ALLOWED_HEADERS = [
  'Content-Type', 'X-Requested-With', 'X-Forwarded-Host', 'X-Forwarded-Prefix', 'X-PINGOTHER', 'Authorization',
  'Svc-LongPoll', 'Svc-ExpectedVersion', 'Svc-EventId', 'Svc-EventType', 'Svc-RequiresMaster', 'Svc-RequireMaster',
  'Svc-RequireLeader', 'Svc-HardDelete', 'Svc-ResolveLinkTos', 'Svc-ConnectionName',
].join(', ');
const EXPOSED_HEADERS = 'Location, Svc-Position, Svc-CurrentVersion';

export function addCorsHeaders(app: FastifyInstance): void {
  // A callback hook: it runs on every reply, and an async one costs a promise each time.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('Access-Control-Allow-Origin', '*');
    reply.header('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    reply.header('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    if (!reply.hasHeader('Access-Control-Allow-Methods')) {
      // request.method rather than routeOptions, whose getter builds an object on every call.
      reply.header('Access-Control-Allow-Methods', `${request.method}, OPTIONS`);
    }
    done(null, payload);
  });
}
