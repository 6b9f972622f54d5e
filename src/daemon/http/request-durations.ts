/**
 * Times every answered request into the metrics' duration histogram, by route group. The group
 * comes from the route's URL pattern (`/streams/:stream`), never the raw URL, so a client that
 * sends a million stream names still adds only a handful of series.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { MetricsService, RouteGroup } from '../services/metrics.js';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The group of a route pattern; undefined for a request no route matched (a 404). */
export function routeGroupOf(pattern: string | undefined, method: string): RouteGroup {
  if (pattern === undefined) return 'other';
  const first = pattern.split('/')[1] ?? '';
  if (first === 'streams') return READS.has(method) ? 'streams_read' : 'streams_write';
  if (first === 'subscriptions') return 'subscriptions';
  if (first === 'projection' || first === 'projections') return 'projections';
  if (first === 'users') return 'users';
  if (['admin', 'stats', 'metrics', 'gossip', 'info', 'ping'].includes(first)) return 'admin';
  return 'other';
}

const routeGroup = (request: FastifyRequest) => routeGroupOf(request.routeOptions.url, request.method);

const measure: FastifyPluginAsync<{ metrics: MetricsService }> = async (app, { metrics }) => {
  // A callback hook: it runs on every request, and an async one costs a promise each time.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(routeGroup(request), reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
};

// The hook must see the routes of every plugin, not only this one's (what fastify-plugin does).
(measure as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;

export const measureRequestDurations = measure;
