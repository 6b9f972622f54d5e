/**
 * Reads of streams: the routes of feeds (backward, forward), single events, `$all` and metadata.
 * Each parses its path at the edge and hands over to a reply: stream-feed-reply.ts,
 * all-feed-reply.ts, event-reply.ts.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../../common/errors.js';
import type { StreamsService } from '../../services/streams.js';
import { allFeedReply } from './all-feed-reply.js';
import { filteredRead } from './all-filter-query.js';
import { metadataReply, metadataStreamOf, singleEventReply } from './event-reply.js';
import type { Direction } from './feed.js';
import { PageCache } from './page-cache.js';
import { countParam, eventNumberParam, HEAD, PAGE_COUNT_DEFAULT } from './read-params.js';
import { ALL } from './read-request.js';
import type { MethodRoute } from '../routing.js';
import { streamFeedReply } from './stream-feed-reply.js';

export interface ReadRoutes {
  stream: MethodRoute;
  metadata: MethodRoute;
  more: Record<string, MethodRoute>;
}

interface ReadParams {
  stream: string;
  event?: string;
  count?: string;
}

function paramsOf(request: FastifyRequest): ReadParams {
  return request.params as ReadParams;
}

function route(handler: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>): MethodRoute {
  return { handler };
}

export function readRoutes(service: StreamsService): ReadRoutes {
  const pages = new PageCache();
  const count = (request: FastifyRequest) => countParam(paramsOf(request).count!);
  const backward: MethodRoute = route(async (request, reply) => {
    const { stream, event } = paramsOf(request);
    if (stream === ALL) return allFeedReply(service, request, reply, { direction: 'backward', fromText: event!, count: count(request) });
    const read = { streamName: stream, direction: 'backward' as const, from: eventNumberParam(event!, true), count: count(request), resolveByDefault: true };
    return streamFeedReply(service, pages, request, reply, read);
  });
  return {
    stream: route(async (request, reply) => {
      const { stream } = paramsOf(request);
      if (stream === ALL) return allFeedReply(service, request, reply, { direction: 'backward', fromText: 'head', count: PAGE_COUNT_DEFAULT });
      return streamFeedReply(service, pages, request, reply, { streamName: stream, direction: 'backward', from: HEAD, count: PAGE_COUNT_DEFAULT, resolveByDefault: true });
    }),
    metadata: route(async (request, reply) => metadataReply(service, request, reply, paramsOf(request).stream)),
    more: {
      '/streams/:stream/:event': route(async (request, reply) => {
        const { stream, event } = paramsOf(request);
        if (stream === ALL) throw Errors.httpPathInvalid.create(event!, 'read $all by pages: /streams/$all/{position}/forward/{count}');
        return singleEventReply(service, request, reply, stream, event!, true);
      }),
      '/streams/:stream/:event/:count': backward,
      '/streams/:stream/:event/backward/:count': backward,
      '/streams/:stream/:event/forward/:count': route(async (request, reply) => {
        const { stream, event } = paramsOf(request);
        if (stream === ALL) return allFeedReply(service, request, reply, { direction: 'forward', fromText: event!, count: count(request) });
        const read = { streamName: stream, direction: 'forward' as const, from: eventNumberParam(event!, false), count: count(request), resolveByDefault: true };
        return streamFeedReply(service, pages, request, reply, read);
      }),
      '/streams/:stream/filtered': filteredFeed(service, 'backward'),
      '/streams/:stream/filtered/:event/backward/:count': filteredFeed(service, 'backward'),
      '/streams/:stream/filtered/:event/forward/:count': filteredFeed(service, 'forward'),
      '/streams/:stream/metadata/:event': route(async (request, reply) => {
        const { stream, event } = paramsOf(request);
        return singleEventReply(service, request, reply, metadataStreamOf(service, stream), event!, false);
      }),
      '/streams/:stream/metadata/:event/:count': metadataFeed(service, pages, 'backward'),
      '/streams/:stream/metadata/:event/backward/:count': metadataFeed(service, pages, 'backward'),
      '/streams/:stream/metadata/:event/forward/:count': metadataFeed(service, pages, 'forward'),
    },
  };
}

/** `/streams/$all/filtered[/{position}/{direction}/{count}]?…`: pages of the events a filter accepts. */
function filteredFeed(service: StreamsService, direction: Direction): MethodRoute {
  return route(async (request, reply) => {
    const { stream, event = 'head', count } = paramsOf(request);
    if (stream !== ALL) throw Errors.httpPathInvalid.create('filtered', 'only $all has filtered reads: /streams/$all/filtered?…');
    const read = { direction, fromText: event, count: count === undefined ? PAGE_COUNT_DEFAULT : countParam(count), filtered: filteredRead(request.query) };
    return allFeedReply(service, request, reply, read);
  });
}

/** The feed forms of a stream's metadata: pages of `$$s`. */
function metadataFeed(service: StreamsService, pages: PageCache, direction: Direction): MethodRoute {
  return route(async (request, reply) => {
    const { stream, event, count } = paramsOf(request);
    const read = {
      streamName: metadataStreamOf(service, stream),
      direction,
      from: eventNumberParam(event!, direction === 'backward'),
      count: countParam(count!),
      resolveByDefault: false,
    };
    return streamFeedReply(service, pages, request, reply, read);
  });
}
