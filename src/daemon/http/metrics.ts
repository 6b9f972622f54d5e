/** `GET /metrics`: the statistics in the Prometheus text exposition format. */
import type { FastifyPluginAsync } from 'fastify';
import type { MetricsService } from '../services/metrics.js';

export interface MetricsRoutesOptions {
  metrics: MetricsService;
}

export const metricsRoutes: FastifyPluginAsync<MetricsRoutesOptions> = async (app, { metrics }) => {
  app.get('/metrics', async (_request, reply) => {
    const body = await metrics.render();
    return reply.type(metrics.contentType).header('cache-control', 'no-cache').send(body);
  });
};
