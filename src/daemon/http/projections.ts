/**
 * The projections API: `/projections/…` listings and creation, `/projection/{name}/…` for one
 * projection, in the wire note's shapes. A projection's source is taken as text whatever the
 * Content-Type says (clients send JavaScript as application/json); config and read-events
 * bodies are JSON. Who may do what is the service's business.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../common/errors.js';
import type { ProjectionMode } from '../projections/projection-config.js';
import type { ProjectionCommand, ProjectionsService } from '../projections/projections-service.js';
import { parseReadEventsRequest } from '../projections/read-events.js';
import { principalOf } from './principal.js';
import { projectionUrl, projectionView } from './projections-view.js';
import { resource } from './routing.js';

export interface ProjectionsRoutesOptions {
  projections: ProjectionsService;
  /** The end of the log, for progress. */
  logEnd: () => number;
}

const LISTINGS: Record<string, ProjectionMode[]> = {
  any: ['Continuous', 'OneTime', 'Transient'],
  'all-non-transient': ['Continuous', 'OneTime'],
  onetime: ['OneTime'],
  continuous: ['Continuous'],
  transient: ['Transient'],
};
const CREATION_MODES: Record<string, ProjectionMode> = { onetime: 'OneTime', continuous: 'Continuous', transient: 'Transient' };
const COMMANDS: readonly ProjectionCommand[] = ['enable', 'disable', 'reset', 'abort'];

type Query = Record<string, string | string[] | undefined>;
const queryOf = (request: FastifyRequest) => request.query as Query;
const nameOf = (request: FastifyRequest) => (request.params as { name: string }).name;

/** yes/true/1 or no/false/0, any case; absent gives the default. */
function flag(query: Query, key: string, fallback: boolean): boolean {
  const raw = query[key];
  if (raw === undefined) return fallback;
  const value = (Array.isArray(raw) ? raw[raw.length - 1] : raw).trim().toLowerCase();
  if (['yes', 'true', '1'].includes(value)) return true;
  if (['no', 'false', '0'].includes(value)) return false;
  throw Errors.projectionRequestInvalid.create(`${key} must be yes, true, 1, no, false or 0`);
}

function text(query: Query, key: string): string | undefined {
  const raw = query[key];
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  return value === undefined || value === '' ? undefined : value;
}

function checkType(query: Query): void {
  const type = text(query, 'type');
  if (type !== undefined && type.toUpperCase() !== 'JS') throw Errors.projectionRequestInvalid.create(`type ${type} is not supported; the only type is JS`);
}

function sourceOf(request: FastifyRequest): string {
  // The parser of this plugin makes every body a string; no body at all is an empty source.
  return typeof request.body === 'string' ? request.body : '';
}

function jsonBody(request: FastifyRequest, what: string): unknown {
  try {
    return JSON.parse(sourceOf(request));
  } catch {
    throw Errors.projectionRequestInvalid.create(`the body of ${what} must be JSON`);
  }
}

const json = (reply: FastifyReply, body: unknown) => reply.header('cache-control', 'no-cache').type('application/json; charset=utf-8').send(body);

export const projectionsRoutes: FastifyPluginAsync<ProjectionsRoutesOptions> = async (app, { projections, logEnd }) => {
  // Every body is text here: a projection source is JavaScript whatever its Content-Type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  resource(app, '/projections', {
    GET: { handler: async (_request, reply) => reply.redirect('/web/projections.htm', 302) },
  });
  for (const [path, modes] of Object.entries(LISTINGS)) {
    const list = async (request: FastifyRequest, reply: FastifyReply) => json(reply, {
      projections: projections.list(principalOf(request), modes).map((projection) => projectionView(request, projection, logEnd())),
    });
    const mode = CREATION_MODES[path];
    const create = async (request: FastifyRequest, reply: FastifyReply) => {
      const query = queryOf(request);
      checkType(query);
      const projection = await projections.create(principalOf(request), {
        mode, name: text(query, 'name'), query: sourceOf(request), enabled: flag(query, 'enabled', true), emit: flag(query, 'emit', false),
        checkpoints: flag(query, 'checkpoints', false), trackEmittedStreams: flag(query, 'trackemittedstreams', false),
      });
      return json(reply.code(201).header('location', projectionUrl(request, projection.name)), { name: projection.name });
    };
    resource(app, `/projections/${path}`, mode ? { GET: { handler: list }, POST: { handler: create } } : { GET: { handler: list } });
  }
  resource(app, '/projections/restart', {
    POST: {
      handler: async (request, reply) => {
        projections.restart(principalOf(request));
        return json(reply, JSON.stringify('Restarting'));
      },
    },
  });
  resource(app, '/projections/read-events', {
    POST: {
      handler: async (request, reply) => json(reply, projections.readEvents(principalOf(request), parseReadEventsRequest(jsonBody(request, 'read-events')))),
    },
  });

  resource(app, '/projection/:name', {
    GET: { handler: async (request, reply) => json(reply, projectionView(request, projections.get(principalOf(request), nameOf(request)), logEnd())) },
    DELETE: {
      handler: async (request, reply) => {
        const query = queryOf(request);
        await projections.delete(principalOf(request), nameOf(request), {
          deleteStateStream: flag(query, 'deleteStateStream', false) || flag(query, 'deletestatestream', false),
          deleteCheckpointStream: flag(query, 'deleteCheckpointStream', false) || flag(query, 'deletecheckpointstream', false),
          deleteEmittedStreams: flag(query, 'deleteEmittedStreams', false) || flag(query, 'deleteemittedstreams', false),
        });
        // The reply of the commands: clients return and check it.
        return json(reply, { name: nameOf(request) });
      },
    },
  });
  for (const which of ['state', 'result'] as const) {
    resource(app, `/projection/:name/${which}`, {
      GET: {
        handler: async (request, reply) => {
          const projection = projections.get(principalOf(request), nameOf(request));
          const partition = text(queryOf(request), 'partition') ?? '';
          const value = which === 'state' ? projection.state(partition) : projection.result(partition);
          reply.header('svc-position', projection.position.tag);
          return json(reply, value ?? '');
        },
      },
    });
  }
  resource(app, '/projection/:name/statistics', {
    GET: { handler: async (request, reply) => json(reply, { projections: [projectionView(request, projections.get(principalOf(request), nameOf(request)), logEnd())] }) },
  });
  resource(app, '/projection/:name/query', {
    GET: {
      handler: async (request, reply) => {
        const projection = projections.get(principalOf(request), nameOf(request));
        if (!flag(queryOf(request), 'config', false)) {
          return reply.header('cache-control', 'no-cache').type('application/javascript; charset=utf-8').send(projection.definition.query);
        }
        const { definition } = projection;
        const config: Record<string, unknown> = { name: definition.name, query: definition.query, type: definition.handlerType };
        if (definition.emitEnabled) config.emitEnabled = true;
        if (definition.trackEmittedStreams) config.trackEmittedStreams = true;
        if (definition.checkpointsEnabled) config.checkpointsEnabled = true;
        return json(reply, config);
      },
    },
    PUT: {
      handler: async (request, reply) => {
        const query = queryOf(request);
        checkType(query);
        const emit = query.emit === undefined ? undefined : flag(query, 'emit', false);
        await projections.updateQuery(principalOf(request), nameOf(request), sourceOf(request), emit);
        return json(reply, { name: nameOf(request) });
      },
    },
  });
  resource(app, '/projection/:name/config', {
    GET: {
      handler: async (request, reply) => {
        const definition = projections.config(principalOf(request), nameOf(request));
        const { emitEnabled, trackEmittedStreams, checkpointAfterMs, checkpointHandledThreshold, checkpointUnhandledBytesThreshold,
          pendingEventsThreshold, maxWriteBatchLength, maxAllowedWritesInFlight, projectionExecutionTimeout } = definition;
        return json(reply, {
          emitEnabled, trackEmittedStreams, checkpointAfterMs, checkpointHandledThreshold, checkpointUnhandledBytesThreshold,
          pendingEventsThreshold, maxWriteBatchLength, maxAllowedWritesInFlight, projectionExecutionTimeout,
        });
      },
    },
    PUT: {
      handler: async (request, reply) => {
        await projections.updateConfig(principalOf(request), nameOf(request), sourceOf(request));
        return json(reply, { name: nameOf(request) });
      },
    },
  });
  for (const command of COMMANDS) {
    resource(app, `/projection/:name/command/${command}`, {
      POST: {
        handler: async (request, reply) => {
          await projections.command(principalOf(request), nameOf(request), command, flag(queryOf(request), 'enableRunAs', false));
          return json(reply, { name: nameOf(request) });
        },
      },
    });
  }
};
