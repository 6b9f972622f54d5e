/**
 * A projection's settings: how it was created (mode, emit, checkpoints, tracking), who it runs as,
 * and the thresholds of GET/PUT /projection/{name}/config. They are stored as the last
 * `$ProjectionUpdated` event of `$projections-{name}` and read back at start.
 */
import { Errors } from '../../common/errors.js';

export type ProjectionMode = 'Continuous' | 'OneTime' | 'Transient';

export interface RunAs {
  name: string;
  /** The user's groups when the projection was given it: it runs with these while the user keeps them. */
  roles: string[];
  /** Whether the node stores the user (not so for a principal a trusted proxy asserts); absent in older definitions, taken as true. */
  stored?: boolean;
}

/** The thresholds and switches GET/PUT /projection/{name}/config shows and changes. */
export interface ProjectionConfig {
  emitEnabled: boolean;
  trackEmittedStreams: boolean;
  checkpointAfterMs: number;
  checkpointHandledThreshold: number;
  checkpointUnhandledBytesThreshold: number;
  pendingEventsThreshold: number;
  maxWriteBatchLength: number;
  maxAllowedWritesInFlight: number;
  projectionExecutionTimeout: number;
}

export interface ProjectionDefinition extends ProjectionConfig {
  name: string;
  mode: ProjectionMode;
  handlerType: string;
  query: string;
  enabled: boolean;
  checkpointsEnabled: boolean;
  runAs: RunAs | null;
  /** Increases at each reset: emitted events of an earlier epoch are never taken for this one's. */
  epoch: number;
  /** Increases at each change of the definition. */
  version: number;
}

export function defaultConfig(executionTimeoutMs: number): ProjectionConfig {
  return {
    emitEnabled: false, trackEmittedStreams: false, checkpointAfterMs: 0, checkpointHandledThreshold: 4000,
    checkpointUnhandledBytesThreshold: 10_000_000, pendingEventsThreshold: 5000, maxWriteBatchLength: 500,
    maxAllowedWritesInFlight: 0, projectionExecutionTimeout: executionTimeoutMs,
  };
}

const INTEGER_FIELDS = [
  'checkpointAfterMs', 'checkpointHandledThreshold', 'checkpointUnhandledBytesThreshold', 'pendingEventsThreshold',
  'maxWriteBatchLength', 'maxAllowedWritesInFlight', 'projectionExecutionTimeout',
] as const;
const BOOLEAN_FIELDS = ['emitEnabled', 'trackEmittedStreams'] as const;
const INTEGER_MAX = 2_147_483_647;

/** The config a PUT sends, applied over the current one; anything malformed is a coded 400 naming the field. */
export function updatedConfig(name: string, current: ProjectionConfig, body: unknown): ProjectionConfig {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw Errors.projectionConfigInvalid.create(name, 'the body must be a JSON object of config fields');
  }
  const next: ProjectionConfig = { ...current };
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if ((BOOLEAN_FIELDS as readonly string[]).includes(key)) {
      if (typeof value !== 'boolean') throw Errors.projectionConfigInvalid.create(name, `${key} must be true or false`);
      next[key as (typeof BOOLEAN_FIELDS)[number]] = value;
    } else if ((INTEGER_FIELDS as readonly string[]).includes(key)) {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > INTEGER_MAX) {
        throw Errors.projectionConfigInvalid.create(name, `${key} must be an integer from 0 to ${INTEGER_MAX}`);
      }
      next[key as (typeof INTEGER_FIELDS)[number]] = value;
    }
  }
  if (next.projectionExecutionTimeout <= 0) throw Errors.projectionConfigInvalid.create(name, 'projectionExecutionTimeout must be greater than 0');
  if (next.checkpointHandledThreshold <= 0) throw Errors.projectionConfigInvalid.create(name, 'checkpointHandledThreshold must be greater than 0');
  return next;
}

export function configOf(definition: ProjectionDefinition): ProjectionConfig {
  const config = {} as Record<string, unknown>;
  for (const key of [...BOOLEAN_FIELDS, ...INTEGER_FIELDS]) config[key] = definition[key];
  return config as unknown as ProjectionConfig;
}
