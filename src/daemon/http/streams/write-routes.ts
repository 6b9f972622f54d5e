/**
 * Writes to streams: append (a batch, or a single raw event with or without an id), the
 * idempotent `incoming/{guid}` re-post, delete (soft or hard), and metadata.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../../common/errors.js';
import { isMetadataStream, METADATA_EVENT_TYPE } from '../../../storage/streams/stream-metadata.js';
import { isNilUuid, isUuid } from '../../../storage/log/uuid.js';
import type { NewEvent, WriteResult } from '../../../storage/streams/write-types.js';
import type { StreamsService } from '../../services/streams.js';
import {
  APPEND_MEDIA_TYPES, batchEvents, checkDataSize, isBatchType, isRawType, METADATA_MEDIA_TYPES, RAW_MEDIA_TYPES, rawEvent,
} from './append-body.js';
import * as headers from './headers.js';
import { bodyMediaType, MediaType } from './media-types.js';
import { principalOf } from '../principal.js';
import type { MethodRoute } from '../routing.js';
import { baseUrl, eventUrl, sameOriginPath } from './urls.js';

/**
 * The request body of a write: above the 4 MiB of event data and metadata it carries
 * (APPEND_DATA_BYTES_MAX), with room for a batch's envelope and its JSON or XML escapes. Not
 * more: parsing an XML batch takes seconds per MiB, and the body is parsed before its data
 * can be measured.
 */
export const APPEND_BODY_BYTES_MAX = 8 * 1024 * 1024;

interface StreamParams {
  stream: string;
}

function bodyOf(request: FastifyRequest): Buffer {
  return Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
}

function created(request: FastifyRequest, reply: FastifyReply, streamName: string, result: WriteResult): FastifyReply {
  reply.raw.statusMessage = 'Created';
  return reply.code(201).header('Location', eventUrl(baseUrl(request), streamName, result.firstEventNumber))
    .type('text/plain; charset=utf-8').send('');
}

/** A raw event without Svc-EventId: the client is sent to an idempotent URI with a fresh id. */
function redirectToIncoming(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = sameOriginPath(request.url.split('?')[0]);
  reply.raw.statusMessage = 'Temporary Redirect';
  return reply.code(307).header('Location', `${baseUrl(request)}${path}/incoming/${randomUUID()}`)
    .type('text/plain; charset=utf-8').send('Forwarding to idempotent URI');
}

export function appendRoutes(service: StreamsService): MethodRoute {
  return {
    options: { bodyLimit: APPEND_BODY_BYTES_MAX },
    handler: async (request, reply) => {
      const { stream } = request.params as StreamParams;
      headers.checkRequireLeader(request);
      const expectedVersion = headers.expectedVersion(request);
      const mediaType = bodyMediaType(request.headers['content-type']);
      let events: NewEvent[];
      if (isBatchType(mediaType)) {
        events = batchEvents(bodyOf(request), mediaType);
      } else if (isRawType(mediaType)) {
        const eventType = headers.eventTypeHeader(request);
        if (!eventType) throw Errors.eventTypeMissing.create();
        const eventId = headers.eventIdHeader(request);
        if (!eventId) return redirectToIncoming(request, reply);
        events = [rawEvent(mediaType, bodyOf(request), eventId, eventType)];
      } else {
        throw Errors.httpMediaType.create(request.headers['content-type'] ?? '', APPEND_MEDIA_TYPES);
      }
      const result = await service.append(principalOf(request), stream, expectedVersion, checkDataSize(events));
      return created(request, reply, stream, result);
    },
  };
}

/** `POST /streams/{s}/incoming/{guid}`: a raw event whose id is the path's GUID. */
export function incomingRoute(service: StreamsService): MethodRoute {
  return {
    options: { bodyLimit: APPEND_BODY_BYTES_MAX },
    handler: async (request, reply) => {
      const { stream, guid } = request.params as StreamParams & { guid: string };
      if (!isUuid(guid)) throw Errors.httpPathInvalid.create(guid, 'the event id in the path must be a UUID');
      if (isNilUuid(guid)) throw Errors.eventIdNil.create('the event id in the path');
      headers.checkRequireLeader(request);
      const expectedVersion = headers.expectedVersion(request);
      const mediaType = bodyMediaType(request.headers['content-type']);
      if (!isRawType(mediaType)) throw Errors.httpMediaType.create(request.headers['content-type'] ?? '', RAW_MEDIA_TYPES);
      const eventType = headers.eventTypeHeader(request);
      if (!eventType) throw Errors.eventTypeMissing.create();
      const event = rawEvent(mediaType, bodyOf(request), guid.toLowerCase(), eventType);
      const result = await service.append(principalOf(request), stream, expectedVersion, checkDataSize([event]));
      return created(request, reply, stream, result);
    },
  };
}

export function deleteRoute(service: StreamsService): MethodRoute {
  return {
    handler: async (request, reply) => {
      const { stream } = request.params as StreamParams;
      headers.checkRequireLeader(request);
      const expectedVersion = headers.expectedVersion(request);
      const hard = headers.hardDelete(request);
      await service.deleteStream(principalOf(request), stream, expectedVersion, hard);
      reply.raw.statusMessage = 'Stream deleted';
      return reply.code(204).send();
    },
  };
}

/**
 * `POST /streams/{s}/metadata`: with `application/json` the body is the metadata, stored as sent
 * (empty, or not JSON at all, it means no metadata), and Svc-EventId is required; with a batch
 * type the one entry's data is the metadata.
 */
export function metadataWriteRoute(service: StreamsService): MethodRoute {
  return {
    options: { bodyLimit: APPEND_BODY_BYTES_MAX },
    handler: async (request, reply) => {
      const { stream } = request.params as StreamParams;
      if (isMetadataStream(stream)) throw Errors.invalidStreamName.create('a metadata stream has no metadata of its own; drop the leading $$');
      headers.checkRequireLeader(request);
      const expectedVersion = headers.expectedVersion(request);
      const mediaType = bodyMediaType(request.headers['content-type']);
      let write: { metadata: Buffer; eventId: string; eventType: string };
      if (mediaType === MediaType.json) {
        const eventId = headers.eventIdHeader(request);
        if (!eventId) throw Errors.eventIdMissing.create('Svc-EventId header of a metadata write');
        const eventType = headers.eventTypeHeader(request);
        if (eventType !== undefined && eventType !== METADATA_EVENT_TYPE) {
          throw Errors.invalidEvent.create('you should not include an event type for metadata (or send $metadata)');
        }
        const body = bodyOf(request);
        checkDataSize([{ eventId, eventType: METADATA_EVENT_TYPE, data: body, metadata: Buffer.alloc(0), isJson: true }]);
        write = { metadata: body, eventId, eventType: METADATA_EVENT_TYPE };
      } else if (isBatchType(mediaType)) {
        const entries = checkDataSize(batchEvents(bodyOf(request), mediaType));
        if (entries.length !== 1) throw Errors.invalidEvent.create('a metadata write holds exactly one event');
        write = { metadata: entries[0].data, eventId: entries[0].eventId, eventType: entries[0].eventType };
      } else {
        throw Errors.httpMediaType.create(request.headers['content-type'] ?? '', METADATA_MEDIA_TYPES);
      }
      const result = await service.writeMetadata(principalOf(request), stream, expectedVersion, write.metadata, write.eventId, write.eventType);
      return created(request, reply, service.metadataStreamOf(stream), result);
    },
  };
}
