/** `GET /ping`: answers as long as the HTTP server runs; load balancers and scripts poll it. */
import type { FastifyPluginAsync } from 'fastify';

const pingSchema = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
} as const;

const pingReply = Object.freeze({ text: 'Ping request successfully handled' });

export const pingRoutes: FastifyPluginAsync = async (app) => {
  app.get('/ping', { schema: { response: { 200: pingSchema } } }, async () => pingReply);
};
