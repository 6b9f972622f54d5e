/**
 * A page of a stream (or of a metadata stream) as a feed: the description document when no type
 * was named, then the page from the cache or the service, held by a long poll when it has
 * nothing new, with its cache headers.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../../common/errors.js';
import type { StreamMetadata } from '../../../storage/streams/stream-metadata.js';
import type { ResolvedPage, StreamsService } from '../../services/streams.js';
import { etagValue, matchesIfNoneMatch, sendNotModified, setImmutable, setRevalidated } from './caching.js';
import { descriptionDocument } from './description.js';
import { EntryUrls } from './entry.js';
import { encodeFeed, STREAM_FEED_TYPES } from './feed-codecs.js';
import { streamFeed, type Direction } from './feed.js';
import * as headers from './headers.js';
import { waitForEvent } from './long-poll-wait.js';
import { MediaType, sendAs, withCharset, type MediaTypeName } from './media-types.js';
import { principalOf } from '../principal.js';
import { principalKey, type PageCache, type PageState } from './page-cache.js';
import { EmbedLevel, HEAD } from './read-params.js';
import { chooseType, embedOf } from './read-request.js';
import { baseUrl } from './urls.js';
import { subscriptionGroupsOf } from '../subscriptions/stream-groups.js';
import { readOffLoop } from '../../../storage/disk/cold-reads.js';

function sendDescription(request: FastifyRequest, reply: FastifyReply, streamName: string, unspecified: boolean): FastifyReply {
  reply.raw.statusMessage = unspecified ? 'Not Acceptable' : 'Description Document';
  const document = descriptionDocument(streamName, subscriptionGroupsOf(request, streamName));
  return reply.code(unspecified ? 406 : 200).type(withCharset(MediaType.streamDescJson)).send(document);
}

export interface StreamRead {
  streamName: string;
  direction: Direction;
  from: number;
  count: number;
  /** Links resolve by default in stream feeds, not in metadata feeds. */
  resolveByDefault: boolean;
}

/** A page whose range is written in full: no append adds to it (a page at the head is never complete). */
function isComplete(read: StreamRead, page: ResolvedPage): boolean {
  if (read.direction === 'backward') return read.from !== HEAD && page.lastEventNumber >= read.from;
  return page.lastEventNumber >= read.from + read.count - 1;
}

/**
 * Under `$maxCount` an append pushes the oldest events out of every page, and under `$maxAge`
 * time does: such a page changes while no one writes to its range, and is never cached for long.
 */
function expiresWithoutWrite(metadata: StreamMetadata): boolean {
  return metadata.maxCount !== undefined || metadata.maxAgeSeconds !== undefined;
}

/** The cache headers of a stream page: a year when it cannot change, else its ETag. */
function setPageHeaders(reply: FastifyReply, type: MediaTypeName, page: PageState): void {
  if (page.immutable) setImmutable(reply);
  else setRevalidated(reply, page.lastEventNumber, type, page.contentEpoch, page.cacheControlSeconds);
}

function isNotModified(request: FastifyRequest, type: MediaTypeName, page: PageState): boolean {
  return !page.immutable && matchesIfNoneMatch(request, page.lastEventNumber, type, page.contentEpoch);
}

/** A page of a stream (or of a metadata stream) as a feed. */
export async function streamFeedReply(
  service: StreamsService, pages: PageCache, request: FastifyRequest, reply: FastifyReply, read: StreamRead,
): Promise<FastifyReply> {
  const { streamName, direction, from, count } = read;
  headers.checkRequireLeader(request);
  const { type, unspecified } = chooseType(request, STREAM_FEED_TYPES);
  if (type === MediaType.streamDescJson) return sendDescription(request, reply, streamName, unspecified);
  const embed = embedOf(request, type, EmbedLevel.prettyBody);
  const resolveLinks = headers.resolveLinkTos(request, read.resolveByDefault);
  const longPollSeconds = direction === 'forward' ? headers.longPollSeconds(request) : undefined;
  const principal = principalOf(request);
  const base = baseUrl(request);
  const key = embed === EmbedLevel.none && longPollSeconds === undefined
    ? `${type}\n${base}\n${direction}\n${from}\n${count}\n${resolveLinks ? 1 : 0}\n${principalKey(principal)}\n${streamName}`
    : undefined;
  const version = service.contentVersion;
  if (key !== undefined) {
    const cached = pages.get(key, version);
    if (cached !== undefined) {
      setPageHeaders(reply, type, cached);
      return isNotModified(request, type, cached) ? sendNotModified(reply) : sendAs(reply, type, cached.body);
    }
  }

  const readPage = (): Promise<ResolvedPage> => readOffLoop(() => direction === 'backward'
    ? service.readBackward(principal, streamName, from, count, resolveLinks)
    : service.readForwardPage(principal, streamName, from, count, resolveLinks));
  const stateOf = (page: ResolvedPage): PageState => ({
    lastEventNumber: page.lastEventNumber,
    contentEpoch: service.contentEpoch,
    immutable: isComplete(read, page) && !expiresWithoutWrite(page.metadata),
    cacheControlSeconds: page.metadata.cacheControlSeconds,
  });
  // Reading and encoding the page take the event loop: a turn while appends wait.
  const finishTurn = await service.readTurn();
  try {
    let page = await readPage();
    // An empty page before the end (its range hidden by $tb or $maxCount) is news: the client moves on.
    const nothingNew = page.status === 'notFound'
      || (page.status === 'success' && ((page.events.length === 0 && page.isEndOfStream) || isNotModified(request, type, stateOf(page))));
    if (longPollSeconds !== undefined && nothingNew) {
      finishTurn();
      await waitForEvent(service, reply, streamName, longPollSeconds);
      page = await readPage();
    }
    if (page.status === 'deleted') throw Errors.streamDeleted.create(streamName);
    if (page.status === 'notFound') throw Errors.streamNotFound.create(streamName);

    const state = stateOf(page);
    setPageHeaders(reply, type, state);
    if (isNotModified(request, type, state)) return sendNotModified(reply);
    const eTag = state.immutable ? undefined : etagValue(page.lastEventNumber, type, state.contentEpoch);
    const feed = streamFeed(new EntryUrls(base), { streamName, direction, from, count, embed }, page, eTag);
    const body = Buffer.from(encodeFeed(type, feed));
    // Events that expire with time change the page without a write: such pages are not kept.
    if (key !== undefined && page.metadata.maxAgeSeconds === undefined) pages.set(key, version, { ...state, body });
    return sendAs(reply, type, body);
  } finally {
    finishTurn();
  }
}
