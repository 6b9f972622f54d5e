/**
 * The operator side of the HTTP API in one registration: request measurements and logs, /stats,
 * /metrics, /gossip, /info/options and the admin commands. The composition root builds the
 * services; app.ts calls this once, before the resource plugins, so the hooks see every route.
 */
import type { FastifyInstance } from 'fastify';
import type { QueueMeter } from '../../storage/log/meters.js';
import type { GossipService } from '../services/gossip.js';
import type { MetricsService } from '../services/metrics.js';
import type { OptionInfo } from '../services/options-info.js';
import type { StatsService } from '../services/stats.js';
import { adminRoutes } from './admin.js';
import { gossipRoutes } from './gossip.js';
import { infoOptionsRoutes } from './info-options.js';
import { metricsRoutes } from './metrics.js';
import { measureRequestDurations } from './request-durations.js';
import { observeRequests } from './stats-hooks.js';
import { statsRoutes } from './stats.js';
import { scavengeRoutes } from './scavenge.js';
import type { ScavengeService } from '../scavenge/scavenge-service.js';

export interface OperationsDependencies {
  stats: StatsService;
  metrics: MetricsService;
  gossip: GossipService;
  options: readonly OptionInfo[];
  requests: QueueMeter;
  onRequestError: () => void;
  logRequests: boolean;
  shutdown: () => void;
  mergeIndexes: () => Promise<void>;
  reloadConfig: () => Promise<void>;
  /** The cluster's resign operation; none on a node outside a cluster. */
  resign?: () => Promise<void>;
  /** The node's scavenge; the scavenge routes are served when it is given. */
  scavenge?: ScavengeService;
}

export function registerOperations(app: FastifyInstance, dependencies: OperationsDependencies): void {
  const { requests, onRequestError, logRequests } = dependencies;
  app.register(observeRequests, { requests, onRequestError, logRequests });
  app.register(measureRequestDurations, { metrics: dependencies.metrics });
  app.register(statsRoutes, { stats: dependencies.stats });
  app.register(metricsRoutes, { metrics: dependencies.metrics });
  app.register(gossipRoutes, { gossip: dependencies.gossip });
  app.register(infoOptionsRoutes, { options: dependencies.options });
  app.register(adminRoutes, {
    shutdown: dependencies.shutdown, mergeIndexes: dependencies.mergeIndexes, reloadConfig: dependencies.reloadConfig, resign: dependencies.resign,
  });
  if (dependencies.scavenge) app.register(scavengeRoutes, { scavenge: dependencies.scavenge });
}
