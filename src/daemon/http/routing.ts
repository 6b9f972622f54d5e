/**
 * One resource, one URL: the methods it answers, OPTIONS (200 with the allowed methods, for
 * CORS preflights) and 405 for every other method, so a wrong method is told apart from a
 * wrong path.
 */
import type { FastifyInstance, RouteHandlerMethod, RouteShorthandOptions } from 'fastify';
import { Errors } from '../../common/errors.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'DELETE'];

export interface MethodRoute {
  handler: RouteHandlerMethod;
  options?: RouteShorthandOptions;
}

export function resource(app: FastifyInstance, url: string, routes: Partial<Record<Method, MethodRoute>>): void {
  const allowed = Object.keys(routes) as Method[];
  const allowHeader = `${allowed.join(', ')}, OPTIONS`;
  for (const method of allowed) {
    const route = routes[method]!;
    app.route({ ...route.options, method, url, handler: route.handler });
  }
  app.route({
    method: 'OPTIONS',
    url,
    handler: async (_request, reply) => reply.header('Access-Control-Allow-Methods', allowHeader).type('text/plain; charset=utf-8').send(''),
  });
  const others = [...METHODS.filter((method) => !allowed.includes(method)), 'PATCH' as const];
  app.route({
    method: others,
    url,
    // The error handler answers 405 from this when the body fails to parse before the handler runs.
    config: { methodsAllowed: allowed.join(', ') },
    handler: async (request, reply) => {
      reply.header('Allow', allowHeader).header('Access-Control-Allow-Methods', allowHeader);
      throw Errors.httpMethodNotAllowed.create(request.method, allowed.join(', '));
    },
  });
}
