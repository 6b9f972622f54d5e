/**
 * The scavenge admin routes: `POST /admin/scavenge` starts a run (`{"scavengeId"}`),
 * `GET /admin/scavenge/current` names the running one and its progress (empty strings when none),
 * `GET /admin/scavenge/{id}` tells how a run is doing or how it ended, and
 * `DELETE /admin/scavenge/{id|current}` stops the running one, answering once it has stopped.
 * Only `$admins` and `$ops` get here (http/authentication.ts); the service does the rest.
 */
import type { FastifyPluginAsync } from 'fastify';
import { Errors } from '../../common/errors.js';
import type { FinishedRun, ScavengeService } from '../scavenge/scavenge-service.js';
import type { RunStatus } from '../scavenge/scavenge-run.js';
import { parseStartRequest, type QueryValue } from '../scavenge/start-request.js';

export interface ScavengeRoutesOptions {
  scavenge: ScavengeService;
}

const SCAVENGE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function linkOf(scavengeId: string): string {
  return `/admin/scavenge/${scavengeId}`;
}

function runBody(status: RunStatus | FinishedRun): Record<string, unknown> {
  if (status.phase === 'Completed') return { ...status, scavengeLink: linkOf(status.scavengeId) };
  const { point, startedMs, ...rest } = status;
  return { ...rest, scavengeLink: linkOf(status.scavengeId), startedAt: new Date(startedMs).toISOString(), ...(point && { scavengePoint: point }) };
}

export const scavengeRoutes: FastifyPluginAsync<ScavengeRoutesOptions> = async (app, { scavenge }) => {
  app.post('/admin/scavenge', async (request) => {
    const { request: start, startFromChunkIgnored } = parseStartRequest(request.query as Record<string, QueryValue>);
    if (startFromChunkIgnored) request.log.warn({ parameter: 'startFromChunk' }, 'startFromChunk is deprecated and ignored: every scavenge covers the whole log up to its point');
    const scavengeId = await scavenge.start(start);
    return { scavengeId };
  });

  app.get('/admin/scavenge/current', async () => {
    const current = scavenge.current();
    return current ? runBody(current) : { scavengeId: '', scavengeLink: '' };
  });

  app.get<{ Params: { scavengeId: string } }>('/admin/scavenge/:scavengeId', async (request) => {
    const { scavengeId } = request.params;
    const status = SCAVENGE_ID.test(scavengeId) ? scavenge.status(scavengeId.toLowerCase()) : undefined;
    if (!status) throw Errors.scavengeNotFound.create(scavengeId);
    return runBody(status);
  });

  app.delete<{ Params: { scavengeId: string } }>('/admin/scavenge/:scavengeId', async (request, reply) => {
    const { scavengeId } = request.params;
    const stopped = await scavenge.stop(scavengeId === 'current' ? scavengeId : scavengeId.toLowerCase());
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(stopped));
  });
};
