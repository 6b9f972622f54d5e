/**
 * The projections' figures for /metrics: each projection's mode, status, events handled and how
 * far behind the end of the log it is. Read through the service's own listing, as the node
 * itself (the metrics endpoint has its own access rule).
 */
import type { ProjectionsService } from '../projections/projections-service.js';
import type { ProjectionMode } from '../projections/projection-config.js';
import type { Principal } from './stream-access.js';
import { ADMINS_GROUP } from '../security/user-record.js';
import type { ProjectionReading } from './metric-table.js';

const NODE: Principal = Object.freeze({ name: '$system', groups: Object.freeze([ADMINS_GROUP]) });
const ALL_MODES: readonly ProjectionMode[] = ['Continuous', 'OneTime', 'Transient'];

export function projectionReadings(projections: ProjectionsService, logEnd: () => number): ProjectionReading[] {
  const end = logEnd();
  return projections.list(NODE, ALL_MODES).map((projection) => ({
    name: projection.name,
    mode: projection.definition.mode,
    status: projection.status,
    eventsProcessed: projection.eventsProcessedAfterRestart,
    positionBytes: Math.max(0, projection.positions.last),
    lagBytes: projection.status === 'Completed' ? 0 : Math.max(0, end - projection.positions.next),
    bufferedEvents: projection.statistics().bufferedEvents,
  }));
}
