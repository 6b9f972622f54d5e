/**
 * Reads of streams: feeds, single events, $all and metadata. Each route parses its path and
 * headers at the edge, asks the streams service, and hands the result to a codec.
 */
import type { FastifyRequest } from 'fastify';
import { Errors } from '../../../common/errors.js';
import { EventFlags } from '../../../storage/record.js';
import type { StreamsService } from '../../services/streams.js';
import * as headers from './headers.js';
import { principalOf } from './principal.js';
import type { MethodRoute } from './routing.js';

export interface ReadRoutes {
  stream: MethodRoute;
  metadata: MethodRoute;
  more: Record<string, MethodRoute>;
}

interface EventParams {
  stream: string;
  event: string;
}

function eventNumberOf(text: string): number {
  if (text === 'head') return -1;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value)) throw Errors.httpPathInvalid.create(text, 'not a valid event number');
  return value;
}

function singleEvent(service: StreamsService): MethodRoute {
  return {
    handler: async (request: FastifyRequest, reply) => {
      const { stream, event } = request.params as EventParams;
      const read = service.readEvent(principalOf(request), stream, eventNumberOf(event), headers.resolveLinkTos(request, true));
      if (read.status === 'deleted') throw Errors.streamDeleted.create(stream);
      if (!read.event) throw Errors.streamNotFound.create(stream);
      const record = read.event.event;
      const body = (record.flags & EventFlags.isJson) !== 0 ? record.data.toString('utf8') : JSON.stringify(record.data.toString('utf8'));
      return reply.type('application/json; charset=utf-8').send(body);
    },
  };
}

function notYet(): MethodRoute {
  return {
    handler: async () => {
      throw Errors.httpNotAcceptable.create('', 'application/json');
    },
  };
}

export function readRoutes(service: StreamsService): ReadRoutes {
  return {
    stream: notYet(),
    metadata: notYet(),
    more: { '/streams/:stream/:event': singleEvent(service) },
  };
}
