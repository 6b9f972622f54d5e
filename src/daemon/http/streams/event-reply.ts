/**
 * Single events (`/streams/{s}/{n|head}`) and metadata (`/streams/{s}/metadata`, the last event
 * of `$$s`) in the representation the client asked for.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../../common/errors.js';
import { isMetadataStream } from '../../../storage/streams/stream-metadata.js';
import { LINK_EVENT_TYPE, type StreamsService } from '../../services/streams.js';
import { matchesIfNoneMatch, sendNotModified, setImmutable, setRevalidated, setUnversioned } from './caching.js';
import { EntryUrls } from './entry.js';
import { emptyRepresentation, encodeEvent, SINGLE_EVENT_TYPES } from './event-codecs.js';
import * as headers from './headers.js';
import { sendAs } from './media-types.js';
import { principalOf } from '../principal.js';
import { EmbedLevel, eventNumberParam, HEAD } from './read-params.js';
import { ALL, chooseType, embedOf } from './read-request.js';
import { readOffLoop } from '../../../storage/disk/cold-reads.js';
import { baseUrl } from './urls.js';

/** `/streams/{s}/metadata…` reads `$$s`; a metadata stream has no metadata of its own. */
export function metadataStreamOf(service: StreamsService, streamName: string): string {
  if (isMetadataStream(streamName)) throw Errors.invalidStreamName.create('a metadata stream has no metadata of its own; drop the leading $$');
  return service.metadataStreamOf(streamName);
}

/** One event of a stream; `head` reads the last one and is revalidated rather than cached. */
export async function singleEventReply(
  service: StreamsService, request: FastifyRequest, reply: FastifyReply, streamName: string, eventText: string, resolveByDefault: boolean,
): Promise<FastifyReply> {
  const eventNumber = eventNumberParam(eventText, true);
  headers.checkRequireLeader(request);
  const { type } = chooseType(request, SINGLE_EVENT_TYPES);
  const embed = embedOf(request, type, EmbedLevel.tryHarder);
  const resolveLinks = headers.resolveLinkTos(request, resolveByDefault);
  const read = await readOffLoop(() => service.readEvent(principalOf(request), streamName, eventNumber, resolveLinks));
  if (read.status === 'deleted') throw Errors.streamDeleted.create(streamName);
  if (read.lastEventNumber < 0) throw Errors.streamNotFound.create(streamName);
  const resolved = read.event;
  // A link whose target is gone is a missing event, as the target would be.
  const dangling = resolved !== undefined && resolveLinks && resolved.link === undefined && resolved.event.eventType === LINK_EVENT_TYPE;
  if (!resolved || dangling) throw Errors.eventNotFound.create(streamName, eventText, dangling);
  if (eventNumber === HEAD) {
    setRevalidated(reply, read.lastEventNumber, type, service.contentEpoch);
    if (matchesIfNoneMatch(request, read.lastEventNumber, type, service.contentEpoch)) return sendNotModified(reply);
  } else {
    setImmutable(reply);
  }
  return sendAs(reply, type, encodeEvent(type, resolved, new EntryUrls(baseUrl(request)), embed));
}

/**
 * `GET /streams/{s}/metadata`: the last event of `$$s`. A stream without metadata has empty
 * metadata (`{}` in JSON); a stream that does not exist has none at all (404).
 */
export async function metadataReply(service: StreamsService, request: FastifyRequest, reply: FastifyReply, streamName: string): Promise<FastifyReply> {
  const metadataStream = metadataStreamOf(service, streamName);
  const read = await readOffLoop(() => service.readEvent(principalOf(request), metadataStream, HEAD, false));
  if (read.event) return singleEventReply(service, request, reply, metadataStream, 'head', false);
  headers.checkRequireLeader(request);
  const { type } = chooseType(request, SINGLE_EVENT_TYPES);
  // The log ($all) always exists; another stream must, to have (empty) metadata.
  if (streamName !== ALL) {
    const status = await readOffLoop(() => service.existenceForMetadata(principalOf(request), streamName));
    if (status === 'deleted') throw Errors.streamDeleted.create(streamName);
    if (status !== 'success') throw Errors.streamNotFound.create(streamName);
  }
  // No metadata event, so no version for an ETag, as the reference answers.
  setUnversioned(reply);
  return sendAs(reply, type, emptyRepresentation(type));
}
