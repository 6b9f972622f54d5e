/**
 * Admin commands that act on this node only: `POST /admin/shutdown` (a clean stop, as SIGTERM)
 * and `POST /admin/mergeindexes`. Both answer first and act after: the shutdown waits for its
 * own reply to be sent, since a stop waits for in-flight requests. Only `$admins` and `$ops` get
 * here (http/authentication.ts).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';

export interface AdminRoutesOptions {
  /** Begins the node's clean stop. */
  shutdown: () => void;
  mergeIndexes: () => Promise<void>;
}

export const adminRoutes: FastifyPluginAsync<AdminRoutesOptions> = async (app, { shutdown, mergeIndexes }) => {
  app.post('/admin/shutdown', async (request, reply) => {
    request.log.info({ reqId: request.id }, 'shutdown requested over HTTP');
    // 'close' fires once the reply is sent, or when the client hangs up: the stop happens either way.
    reply.raw.once('close', shutdown);
    // This connection must not outlive the reply: the stop waits for every open connection.
    return reply.header('connection', 'close').type('text/plain; charset=utf-8').send('');
  });

  app.post('/admin/mergeindexes', async (request) => {
    const mergeIndexesId = randomUUID();
    request.log.info({ mergeIndexesId }, 'index merge requested');
    mergeIndexes().then(
      () => request.log.info({ mergeIndexesId }, 'index merge finished'),
      (error: unknown) => request.log.error({ err: error, mergeIndexesId }, 'index merge failed'),
    );
    return { mergeIndexesId };
  });
};
