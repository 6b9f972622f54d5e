/**
 * `GET /stats` and `GET /stats/{statPath}`: the statistics tree or one branch of it, as JSON, or
 * as XML (root `Stats`) when the Accept header or `?format=xml` asks for it. `?group=false`
 * flattens it to `proc-mem` keys. An unknown path is 404. `GET /stats/history` is the node's
 * recent samples (services/stats-history.ts), newer than `?after=` when given.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../common/errors.js';
import { flatten, selectPath, toXml, type StatsValue } from '../services/stats-format.js';
import type { StatsService } from '../services/stats.js';
import type { StatsHistoryDocument } from '../../common/stats-history-document.js';
import { STATS_HISTORY_PERIOD_MS, STATS_HISTORY_SAMPLES_MAX, StatsHistory } from '../services/stats-history.js';

export interface StatsRoutesOptions {
  stats: StatsService;
}

const historyQuerySchema = {
  type: 'object',
  properties: { after: { type: 'integer', minimum: -1 } },
  additionalProperties: false,
} as const;

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
  // Hooks added here see only this plugin's routes: the monitoring requests the history leaves out of the load.
  let monitoringRequests = 0;
  app.addHook('onResponse', (_request, _reply, done) => {
    monitoringRequests += 1;
    done();
  });
  const history = new StatsHistory({ collect: () => stats.collect(), monitoringRequests: () => monitoringRequests });
  app.addHook('onReady', (done) => {
    history.start();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    history.stop();
    done();
  });

  app.get<{ Querystring: { after?: number } }>('/stats/history', { schema: { querystring: historyQuerySchema } }, async (request, reply) => {
    reply.header('cache-control', 'no-cache, private');
    const document: StatsHistoryDocument = { periodMs: STATS_HISTORY_PERIOD_MS, samplesMax: STATS_HISTORY_SAMPLES_MAX, samples: history.since(request.query.after) };
    return document;
  });

  app.get<{ Querystring: StatsQuery }>('/stats', { schema: { querystring: querySchema } }, async (request, reply) =>
    send(request, reply, (await stats.collect()) as unknown as StatsValue));

  app.get<{ Querystring: StatsQuery; Params: { '*': string } }>('/stats/*', { schema: { querystring: querySchema } }, async (request, reply) => {
    const segments = request.params['*'].split('/').filter((segment) => segment !== '');
    const value = selectPath((await stats.collect()) as unknown as StatsValue, segments);
    if (value === undefined) throw Errors.httpNotFound.create(request.method, request.url);
    return send(request, reply, value);
  });
};
