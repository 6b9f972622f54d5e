/**
 * Times every answered request into the metrics' duration histogram, by route group. The group
 * comes from the route's URL pattern (`/streams/:stream`), never the raw URL, so a client that
 * sends a million stream names still adds only a handful of series.
 *
 * The group is worked out once per route, when the route is added, and baked into a hook of that
 * route: reading `request.routeOptions` on every request builds a frozen object each time, and
 * with the pattern split that cost the reads and appends several microseconds each. A request
 * that no route matched (a 404) is counted as `other` by an app-wide hook that looks at nothing
 * else.
 */
import type { FastifyPluginAsync, onResponseHookHandler, RouteOptions } from 'fastify';
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

function hooksOf(route: RouteOptions): onResponseHookHandler[] {
  const hooks = route.onResponse;
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? [...hooks] : [hooks];
}

const measure: FastifyPluginAsync<{ metrics: MetricsService }> = async (app, { metrics }) => {
  // A route answers for one method or several; each method gets its own group's hook.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const groups = new Map(methods.map((method) => [method, routeGroupOf(route.url, method)]));
    // A callback hook: it runs on every request, and an async one costs a promise each time.
    const timed: onResponseHookHandler = (request, reply, done) => {
      metrics.observeRequest(groups.get(request.method) ?? 'other', reply.statusCode, reply.elapsedTime / 1000);
      done();
    };
    route.onResponse = [...hooksOf(route), timed];
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) metrics.observeRequest('other', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
};

// The hooks must see the routes of every plugin, not only this one's (what fastify-plugin does).
(measure as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;

export const measureRequestDurations = measure;
