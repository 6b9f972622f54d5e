/**
 * Admin commands that act on this node only: `POST /admin/shutdown` (a clean stop, as SIGTERM),
 * `POST /admin/mergeindexes` and `POST /admin/reloadconfig`. Shutdown and merge answer first and
 * act after: the shutdown waits for its own reply to be sent, since a stop waits for in-flight
 * requests. A configuration reload answers once it is done, with its coded error if it failed.
 * Only `$admins` and `$ops` get here (http/authentication.ts).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';

export interface AdminRoutesOptions {
  /** Begins the node's clean stop. */
  shutdown: () => void;
  mergeIndexes: () => Promise<void>;
  /** Reloads the certificates; rejects with the coded error when nothing changed. */
  reloadConfig: () => Promise<void>;
}

export const adminRoutes: FastifyPluginAsync<AdminRoutesOptions> = async (app, { shutdown, mergeIndexes, reloadConfig }) => {
  app.post('/admin/shutdown', async (request, reply) => {
    // request.log carries the request id already.
    request.log.info('shutdown requested over HTTP');
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

  app.post('/admin/reloadconfig', async (_request, reply) => {
    await reloadConfig();
    return reply.type('text/plain; charset=utf-8').send('');
  });
};
