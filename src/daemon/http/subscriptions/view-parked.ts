/**
 * `GET /subscriptions/viewparkedmessages/{stream}/{group}/{event}/(backward|forward)/{count}`:
 * the group's parked stream as a stream feed, read as any stream is (its ACL applies; it is a
 * system stream, so by default only `$admins` read it), with links resolved to the parked events.
 */
import type { FastifyRequest } from 'fastify';
import { Errors } from '../../../common/errors.js';
import type { StreamsService } from '../../services/streams.js';
import type { SubscriptionsService } from '../../subscriptions/service.js';
import type { MethodRoute } from '../routing.js';
import { PageCache } from '../streams/page-cache.js';
import { countParam, eventNumberParam } from '../streams/read-params.js';
import { streamFeedReply } from '../streams/stream-feed-reply.js';

interface ViewParams {
  stream: string;
  group: string;
  event: string;
  direction: string;
  count: string;
}

export function viewParkedRoute(subscriptions: SubscriptionsService, streams: StreamsService): MethodRoute {
  const pages = new PageCache();
  return {
    handler: async (request: FastifyRequest, reply) => {
      const { stream, group, event, direction, count } = request.params as ViewParams;
      if (direction !== 'forward' && direction !== 'backward') {
        throw Errors.httpPathInvalid.create(direction, 'the direction is forward or backward');
      }
      const parkedStream = subscriptions.get(stream, group).parked.streamName;
      const read = {
        streamName: parkedStream, direction, from: eventNumberParam(event, direction === 'backward'),
        count: countParam(count), resolveByDefault: true,
      } as const;
      return streamFeedReply(streams, pages, request, reply, read);
    },
  };
}
