/**
 * Reads of streams: feeds (backward, forward), single events, `$all` and metadata. Each route
 * parses its path and headers at the edge, picks a media type, asks the streams service, sets
 * the cache headers and hands the result to a codec. JSON is built with JSON.stringify of plain
 * objects; XML work happens only when XML was asked for.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../../common/errors.js';
import type { EventRecord } from '../../../storage/record.js';
import { isMetadataStream } from '../../../storage/stream-metadata.js';
import { LINK_EVENT_TYPE, parseLink, type ResolvedEvent, type ResolvedPage, type StreamsService } from '../../services/streams.js';
import type { Principal } from '../../services/stream-access.js';
import { parseAllPosition } from './all-positions.js';
import { feedXml } from './atom-xml.js';
import { etagValue, matchesIfNoneMatch, sendNotModified, setImmutable, setRevalidated } from './caching.js';
import { descriptionDocument } from './description.js';
import { EntryUrls } from './entry.js';
import { emptyRepresentation, encodeEvent, SINGLE_EVENT_TYPES } from './event-codecs.js';
import { allFeed, streamFeed, type AllPageRead, type Direction, type Feed } from './feed.js';
import * as headers from './headers.js';
import { waitForEvent } from './long-poll-wait.js';
import { MediaType, negotiate, withCharset, type MediaTypeName, type Negotiated } from './media-types.js';
import { principalOf } from './principal.js';
import { PageCache, principalKey, type PageState } from './page-cache.js';
import { countParam, EmbedLevel, embedParam, eventNumberParam, HEAD, PAGE_COUNT_DEFAULT } from './read-params.js';
import type { MethodRoute } from './routing.js';
import { baseUrl } from './urls.js';

export interface ReadRoutes {
  stream: MethodRoute;
  metadata: MethodRoute;
  more: Record<string, MethodRoute>;
}

const ALL = '$all';

/** Stream feeds: the description document first, so a client naming no type gets it (406). */
const FEED_TYPES: readonly MediaTypeName[] = [
  MediaType.streamDescJson, MediaType.atomXml, MediaType.atomJson, MediaType.json, MediaType.textXml, MediaType.xml,
];
const ALL_FEED_TYPES = FEED_TYPES.slice(1);
const XML_FEED_TYPES = new Set<string>([MediaType.atomXml, MediaType.textXml, MediaType.xml]);

interface ReadParams {
  stream: string;
  event?: string;
  count?: string;
}

interface ReadQuery {
  embed?: unknown;
  format?: unknown;
}

function paramsOf(request: FastifyRequest): ReadParams {
  return request.params as ReadParams;
}

/** Content negotiation, with the common case (Accept names exactly one offered type) first. */
function chooseType(request: FastifyRequest, offered: readonly MediaTypeName[]): Negotiated {
  const { format } = request.query as ReadQuery;
  const accept = request.headers.accept;
  if (format === undefined && accept !== undefined && offered.includes(accept as MediaTypeName)) {
    return { type: accept as MediaTypeName, unspecified: false };
  }
  return negotiate(accept, format, offered);
}

function sendFeed(reply: FastifyReply, type: MediaTypeName, feed: Feed): FastifyReply {
  const body = XML_FEED_TYPES.has(type) ? feedXml(feed) : JSON.stringify(feed);
  return reply.type(withCharset(type)).send(body);
}

function sendDescription(reply: FastifyReply, streamName: string, unspecified: boolean): FastifyReply {
  reply.raw.statusMessage = unspecified ? 'Not Acceptable' : 'Description Document';
  return reply.code(unspecified ? 406 : 200).type(withCharset(MediaType.streamDescJson)).send(descriptionDocument(streamName));
}

/** `/streams/{s}/metadata…` reads `$$s`; a metadata stream has no metadata of its own. */
function metadataStreamOf(service: StreamsService, streamName: string): string {
  if (isMetadataStream(streamName)) throw Errors.invalidStreamName.create('a metadata stream has no metadata of its own; drop the leading $$');
  return service.metadataStreamOf(streamName);
}

interface StreamRead {
  streamName: string;
  direction: Direction;
  from: number;
  count: number;
  /** Links resolve by default in stream feeds, not in metadata feeds. */
  resolveByDefault: boolean;
}

interface ReadContext {
  service: StreamsService;
  pages: PageCache;
}

/** The cache headers of a stream page: a year when it cannot change, else its ETag. */
function setPageHeaders(reply: FastifyReply, type: MediaTypeName, page: PageState): void {
  if (page.immutable) setImmutable(reply);
  else setRevalidated(reply, page.lastEventNumber, type, page.cacheControlSeconds);
}

function isNotModified(request: FastifyRequest, type: MediaTypeName, page: PageState): boolean {
  return !page.immutable && matchesIfNoneMatch(request, page.lastEventNumber, type);
}

/** A page of a stream (or of a metadata stream) as a feed. */
async function streamFeedReply(context: ReadContext, request: FastifyRequest, reply: FastifyReply, read: StreamRead): Promise<FastifyReply> {
  const { service, pages } = context;
  const { streamName, direction, from, count } = read;
  headers.checkRequireLeader(request);
  const { type, unspecified } = chooseType(request, FEED_TYPES);
  if (type === MediaType.streamDescJson) return sendDescription(reply, streamName, unspecified);
  const embed = embedParam((request.query as ReadQuery).embed);
  const resolveLinks = headers.resolveLinkTos(request, read.resolveByDefault);
  const longPollSeconds = direction === 'forward' ? headers.longPollSeconds(request) : undefined;
  const principal = principalOf(request);
  const base = baseUrl(request);
  const key = embed === EmbedLevel.none && longPollSeconds === undefined
    ? `${type}\n${base}\n${direction}\n${from}\n${count}\n${resolveLinks ? 1 : 0}\n${principalKey(principal)}\n${streamName}`
    : undefined;
  const logEnd = service.logEnd;
  if (key !== undefined) {
    const cached = pages.get(key, logEnd);
    if (cached !== undefined) {
      setPageHeaders(reply, type, cached);
      return isNotModified(request, type, cached) ? sendNotModified(reply) : reply.type(withCharset(type)).send(cached.body);
    }
  }

  const readPage = (): ResolvedPage => direction === 'backward'
    ? service.readBackward(principal, streamName, from, count, resolveLinks)
    : service.readForward(principal, streamName, from, count, resolveLinks);
  const stateOf = (page: ResolvedPage): PageState => ({
    lastEventNumber: page.lastEventNumber,
    immutable: direction === 'backward' ? from !== HEAD && page.lastEventNumber >= from : page.lastEventNumber >= from + count - 1,
    cacheControlSeconds: page.metadata.cacheControlSeconds,
  });
  let page = readPage();
  const nothingNew = page.status === 'notFound'
    || (page.status === 'success' && (page.events.length === 0 || isNotModified(request, type, stateOf(page))));
  if (longPollSeconds !== undefined && nothingNew) {
    await waitForEvent(service, reply, streamName, longPollSeconds);
    page = readPage();
  }
  if (page.status === 'deleted') throw Errors.streamDeleted.create(streamName);
  if (page.status === 'notFound') throw Errors.streamNotFound.create(streamName);

  const state = stateOf(page);
  setPageHeaders(reply, type, state);
  if (isNotModified(request, type, state)) return sendNotModified(reply);
  const eTag = state.immutable ? undefined : etagValue(page.lastEventNumber, type);
  const feed = streamFeed(new EntryUrls(base), { streamName, direction, from, count, embed }, page, eTag);
  const body = Buffer.from(XML_FEED_TYPES.has(type) ? feedXml(feed) : JSON.stringify(feed));
  // Events that expire with time change the page without a write: such pages are not kept.
  if (key !== undefined && page.metadata.maxAgeSeconds === undefined) pages.set(key, logEnd, { ...state, body });
  return reply.type(withCharset(type)).send(body);
}

interface AllRead {
  direction: Direction;
  /** The position as the client wrote it, or `head`. */
  fromText: string;
  count: number;
}

/** A link in $all stands for its target when the client asks (`$all` does not resolve by default). */
function resolveAll(service: StreamsService, principal: Principal | undefined, events: EventRecord[], resolveLinks: boolean): ResolvedEvent[] {
  return events.map((event): ResolvedEvent => {
    if (!resolveLinks || event.eventType !== LINK_EVENT_TYPE) return { event };
    const target = parseLink(event.data.toString('utf8'));
    if (!target) return { event };
    try {
      const read = service.readEvent(principal, target.streamName, target.eventNumber, false);
      return read.event ? { event: read.event.event, link: event } : { event };
    } catch {
      // A target the caller may not read, or a malformed name, leaves the link unresolved.
      return { event };
    }
  });
}

/** A $all read; a position that is not a record boundary is the client's mistake. */
function readAllPage(service: StreamsService, principal: Principal | undefined, read: AllRead, from: number) {
  try {
    return read.direction === 'backward'
      ? service.readAllBackward(principal, from, read.count)
      : service.readAllForward(principal, from, read.count);
  } catch (error) {
    if (Errors.invalidArgument.is(error)) throw Errors.httpPathInvalid.create(read.fromText, 'it is not the position of an event in the log');
    throw error;
  }
}

async function allFeedReply(service: StreamsService, request: FastifyRequest, reply: FastifyReply, read: AllRead): Promise<FastifyReply> {
  const { direction, count } = read;
  const from = direction === 'backward' && read.fromText === 'head' ? HEAD : parseAllPosition(read.fromText);
  headers.checkRequireLeader(request);
  const { type } = chooseType(request, ALL_FEED_TYPES);
  const embed = embedParam((request.query as ReadQuery).embed);
  const resolveLinks = headers.resolveLinkTos(request, false);
  const longPollSeconds = direction === 'forward' ? headers.longPollSeconds(request) : undefined;
  const principal = principalOf(request);
  const readPage = () => ({ page: readAllPage(service, principal, read, from), logEnd: service.logEnd });
  const isImmutable = ({ page, logEnd }: ReturnType<typeof readPage>): boolean => direction === 'backward'
    ? from !== HEAD && from <= logEnd
    : page.events.length === count;
  const notModified = (current: ReturnType<typeof readPage>): boolean => !isImmutable(current) && matchesIfNoneMatch(request, current.logEnd, type);

  let current = readPage();
  if (longPollSeconds !== undefined && (current.page.events.length === 0 || notModified(current))) {
    await waitForEvent(service, reply, ALL, longPollSeconds);
    current = readPage();
  }
  const { page, logEnd } = current;
  let eTag: string | undefined;
  if (isImmutable(current)) {
    setImmutable(reply);
  } else {
    setRevalidated(reply, logEnd, type);
    if (notModified(current)) return sendNotModified(reply);
    eTag = etagValue(logEnd, type);
  }
  const events = page.events;
  let previousPosition: number;
  if (direction === 'forward') {
    previousPosition = events.length > 0 ? events[0].logPosition : from;
  } else if (events.length > 0) {
    // Just after the newest event: where a forward read finds what was written since.
    previousPosition = service.readAllForward(principal, events[0].logPosition, 1).nextPosition;
  } else {
    previousPosition = from === HEAD ? logEnd : from;
  }
  const pageRead: AllPageRead = { events: resolveAll(service, principal, events, resolveLinks), isEnd: page.isEnd, nextPosition: page.nextPosition, previousPosition };
  const feed = allFeed(new EntryUrls(baseUrl(request)), { direction, from, count, embed }, pageRead, eTag);
  return sendFeed(reply, type, feed);
}

/** One event of a stream; `head` reads the last one and is revalidated rather than cached. */
async function singleEventReply(
  service: StreamsService, request: FastifyRequest, reply: FastifyReply, streamName: string, eventText: string, resolveByDefault: boolean,
): Promise<FastifyReply> {
  const eventNumber = eventNumberParam(eventText, true);
  headers.checkRequireLeader(request);
  const { type } = chooseType(request, SINGLE_EVENT_TYPES);
  const embed = embedParam((request.query as ReadQuery).embed);
  const resolveLinks = headers.resolveLinkTos(request, resolveByDefault);
  const read = service.readEvent(principalOf(request), streamName, eventNumber, resolveLinks);
  if (read.status === 'deleted') throw Errors.streamDeleted.create(streamName);
  if (read.lastEventNumber < 0) throw Errors.streamNotFound.create(streamName);
  const resolved = read.event;
  // A link whose target is gone is a missing event, as the target would be.
  const dangling = resolved !== undefined && resolveLinks && resolved.link === undefined && resolved.event.eventType === LINK_EVENT_TYPE;
  if (!resolved || dangling) throw Errors.httpNotFound.create(request.method, request.url);
  if (eventNumber === HEAD) {
    setRevalidated(reply, read.lastEventNumber, type);
    if (matchesIfNoneMatch(request, read.lastEventNumber, type)) return sendNotModified(reply);
  } else {
    setImmutable(reply);
  }
  return reply.type(withCharset(type)).send(encodeEvent(type, resolved, new EntryUrls(baseUrl(request)), embed));
}

/**
 * `GET /streams/{s}/metadata`: the last event of `$$s`. A stream without metadata has empty
 * metadata (`{}` in JSON); a stream that does not exist has none at all (404).
 */
async function metadataReply(service: StreamsService, request: FastifyRequest, reply: FastifyReply, streamName: string): Promise<FastifyReply> {
  const metadataStream = metadataStreamOf(service, streamName);
  const read = service.readEvent(principalOf(request), metadataStream, HEAD, false);
  if (read.event) return singleEventReply(service, request, reply, metadataStream, 'head', false);
  headers.checkRequireLeader(request);
  const { type } = chooseType(request, SINGLE_EVENT_TYPES);
  // The log ($all) always exists; another stream must, to have (empty) metadata.
  if (streamName !== ALL) {
    const stream = service.readEvent(principalOf(request), streamName, HEAD, false);
    if (stream.status === 'deleted') throw Errors.streamDeleted.create(streamName);
    if (stream.status !== 'success') throw Errors.streamNotFound.create(streamName);
  }
  setRevalidated(reply, read.lastEventNumber, type);
  return reply.type(withCharset(type)).send(emptyRepresentation(type));
}

function route(handler: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>): MethodRoute {
  return { handler };
}

export function readRoutes(service: StreamsService): ReadRoutes {
  const context: ReadContext = { service, pages: new PageCache() };
  const count = (request: FastifyRequest) => countParam(paramsOf(request).count!);
  const backward: MethodRoute = route(async (request, reply) => {
    const { stream, event } = paramsOf(request);
    if (stream === ALL) return allFeedReply(service, request, reply, { direction: 'backward', fromText: event!, count: count(request) });
    const read = { streamName: stream, direction: 'backward' as const, from: eventNumberParam(event!, true), count: count(request), resolveByDefault: true };
    return streamFeedReply(context, request, reply, read);
  });
  return {
    stream: route(async (request, reply) => {
      const { stream } = paramsOf(request);
      if (stream === ALL) return allFeedReply(service, request, reply, { direction: 'backward', fromText: 'head', count: PAGE_COUNT_DEFAULT });
      return streamFeedReply(context, request, reply, { streamName: stream, direction: 'backward', from: HEAD, count: PAGE_COUNT_DEFAULT, resolveByDefault: true });
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
        return streamFeedReply(context, request, reply, read);
      }),
      '/streams/:stream/metadata/:event': route(async (request, reply) => {
        const { stream, event } = paramsOf(request);
        return singleEventReply(service, request, reply, metadataStreamOf(service, stream), event!, false);
      }),
      '/streams/:stream/metadata/:event/:count': metadataFeed(context, 'backward'),
      '/streams/:stream/metadata/:event/backward/:count': metadataFeed(context, 'backward'),
      '/streams/:stream/metadata/:event/forward/:count': metadataFeed(context, 'forward'),
    },
  };
}

/** The feed forms of a stream's metadata: pages of `$$s`. */
function metadataFeed(context: ReadContext, direction: Direction): MethodRoute {
  return route(async (request, reply) => {
    const { stream, event, count } = paramsOf(request);
    const read = {
      streamName: metadataStreamOf(context.service, stream),
      direction,
      from: eventNumberParam(event!, direction === 'backward'),
      count: countParam(count!),
      resolveByDefault: false,
    };
    return streamFeedReply(context, request, reply, read);
  });
}
