/**
 * `GET /stats` and `GET /stats/{statPath}`: the statistics tree or one branch of it, as JSON, or
 * as XML (root `Stats`) when the Accept header or `?format=xml` asks for it. `?group=false`
 * flattens it to `proc-mem` keys. An unknown path is 404.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../common/errors.js';
import { flatten, selectPath, toXml, type StatsValue } from '../services/stats-format.js';
import type { StatsService } from '../services/stats.js';

export interface StatsRoutesOptions {
  stats: StatsService;
}

interface StatsQuery {
  format?: string;
  group?: string;
}

const querySchema = {
  type: 'object',
  properties: {
    format: { type: 'string', enum: ['json', 'xml'] },
    group: { type: 'string', enum: ['true', 'false'] },
  },
} as const;

function wantsXml(request: FastifyRequest<{ Querystring: StatsQuery }>): boolean {
  if (request.query.format) return request.query.format === 'xml';
  const accept = request.headers.accept ?? '';
  // JSON unless the client names XML and not JSON (no Accept, or */*, is JSON).
  return /\bxml\b/i.test(accept) && !/\bjson\b/i.test(accept);
}

async function send(request: FastifyRequest<{ Querystring: StatsQuery }>, reply: FastifyReply, value: StatsValue): Promise<FastifyReply> {
  const body = request.query.group === 'false' && typeof value === 'object' ? flatten(value) : value;
  reply.header('cache-control', 'max-age=1, public');
  if (wantsXml(request)) return reply.type('application/xml; charset=utf-8').send(toXml(body));
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
}

export const statsRoutes: FastifyPluginAsync<StatsRoutesOptions> = async (app, { stats }) => {
  app.get<{ Querystring: StatsQuery }>('/stats', { schema: { querystring: querySchema } }, async (request, reply) =>
    send(request, reply, (await stats.collect()) as unknown as StatsValue));

  app.get<{ Querystring: StatsQuery; Params: { '*': string } }>('/stats/*', { schema: { querystring: querySchema } }, async (request, reply) => {
    const segments = request.params['*'].split('/').filter((segment) => segment !== '');
    const value = selectPath((await stats.collect()) as unknown as StatsValue, segments);
    if (value === undefined) throw Errors.httpNotFound.create(request.method, request.url);
    return send(request, reply, value);
  });
};
