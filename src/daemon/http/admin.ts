/**
 * Admin commands that act on this node only: `POST /admin/shutdown` (a clean stop, as SIGTERM),
 * `POST /admin/mergeindexes` and `POST /admin/reloadconfig`. Shutdown and merge answer first and
 * act after: the shutdown waits for its own reply to be sent, since a stop waits for in-flight
 * requests. A configuration reload answers once it is done, with its coded error if it failed.
 * `POST /admin/node/resign` gives up the cluster's leadership (the wire note's 200 with an empty
 * body); a node outside a cluster answers the same and does nothing, as a single node of the
 * reference resigns and at once elects itself again. `POST /admin/node/priority/{n}` is refused:
 * the priority is in the node's etcd record from its start.
 * Only `$admins` and `$ops` get here (http/authentication.ts); cross-site.ts refuses forged posts.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { Errors } from '../../common/errors.js';

export interface AdminRoutesOptions {
  /** Begins the node's clean stop. */
  shutdown: () => void;
  mergeIndexes: () => Promise<void>;
  /** Reloads the certificates; rejects with the coded error when nothing changed. */
  reloadConfig: () => Promise<void>;
  /** Gives up the cluster's leadership; resolves once the leader key is gone. None outside a cluster. */
  resign?: () => Promise<void>;
}

/** Any 32-bit integer reaches the handler, so that every priority gets the same coded answer. */
const priorityParams = {
  type: 'object', required: ['priority'], properties: { priority: { type: 'integer', minimum: -2_147_483_648, maximum: 2_147_483_647 } },
} as const;

export const adminRoutes: FastifyPluginAsync<AdminRoutesOptions> = async (app, { shutdown, mergeIndexes, reloadConfig, resign }) => {
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

  app.post('/admin/node/resign', async (request, reply) => {
    request.log.info({ inCluster: resign !== undefined }, 'resignation requested over HTTP');
    await resign?.();
    return reply.type('text/plain; charset=utf-8').send('');
  });

  app.post<{ Params: { priority: number } }>('/admin/node/priority/:priority', { schema: { params: priorityParams } }, async (request) => {
    throw Errors.clusterPriorityAtStart.create(request.params.priority);
  });
};
