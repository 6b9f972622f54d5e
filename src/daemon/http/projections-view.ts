/**
 * A projection as the listings and GET /projection/{name} show it: the wire note's fields, with
 * absolute URLs built from the request.
 */
import type { FastifyRequest } from 'fastify';
import type { Projection } from '../projections/projection.js';
import { isOperator } from '../projections/projections-service.js';
import { principalOf } from './principal.js';
import { pathSegment } from './path-segment.js';
import { baseUrl } from './streams/urls.js';

export function statusText(projection: Projection): string {
  const { status, definition } = projection;
  const stopped = status === 'Stopped' || status === 'Faulted' || status === 'Aborted';
  return stopped && definition.enabled ? `${status} (Enabled)` : status;
}

export function projectionUrl(request: FastifyRequest, name: string): string {
  return `${baseUrl(request)}/projection/${pathSegment(name)}`;
}

function progressOf(projection: Projection, logEnd: number): number {
  if (projection.status === 'Completed') return 100;
  if (logEnd <= 0) return 100;
  return Math.min(100, Math.round((projection.positions.next / logEnd) * 10_000) / 100);
}

export function projectionView(request: FastifyRequest, projection: Projection, logEnd: number): Record<string, unknown> {
  const { definition } = projection;
  const url = projectionUrl(request, projection.name);
  const statistics = projection.statistics();
  const view: Record<string, unknown> = {
    name: projection.name, effectiveName: projection.name, mode: definition.mode, status: statusText(projection),
    // Operators read the whole reason; other users not the internal detail of a node error.
    stateReason: isOperator(principalOf(request)) ? projection.stateReason : projection.publicReason, enabled: definition.enabled, version: definition.version, epoch: definition.epoch,
    position: projection.position.text, progress: progressOf(projection, logEnd),
    lastCheckpoint: projection.lastCheckpointText,
    eventsProcessedAfterRestart: projection.eventsProcessedAfterRestart, checkpointStatus: statistics.checkpointStatus,
    bufferedEvents: statistics.bufferedEvents, partitionsCached: projection.partitionCount, coreProcessingTime: statistics.coreProcessingTime,
    readsInProgress: statistics.readsInProgress, writesInProgress: statistics.writesInProgress,
    writePendingEventsBeforeCheckpoint: statistics.writePendingEventsBeforeCheckpoint,
    writePendingEventsAfterCheckpoint: statistics.writePendingEventsAfterCheckpoint,
    statusUrl: url, stateUrl: `${url}/state`, resultUrl: `${url}/result`, queryUrl: `${url}/query?config=yes`,
    enableCommandUrl: `${url}/command/enable`, disableCommandUrl: `${url}/command/disable`,
  };
  const resultStream = projection.resultStream;
  if (resultStream !== undefined) view.resultStreamUrl = `${baseUrl(request)}/streams/${pathSegment(resultStream)}`;
  return view;
}
