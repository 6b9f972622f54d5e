/**
 * A page of `$all` as a feed, by log position. Links resolve only when asked; pages behind the
 * head and full forward pages never change; the head and partial pages carry an ETag on the log
 * end.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../../common/errors.js';
import type { EventRecord } from '../../../storage/log/record.js';
import type { Principal } from '../../services/stream-access.js';
import { LINK_EVENT_TYPE, parseLink, type ResolvedEvent, type StreamsService } from '../../services/streams.js';
import { parseAllPosition } from './all-positions.js';
import { etagValue, matchesIfNoneMatch, sendNotModified, setImmutable, setRevalidated } from './caching.js';
import { EntryUrls } from './entry.js';
import { ALL_FEED_TYPES, encodeFeed } from './feed-codecs.js';
import { allFeed, type AllPageRead, type Direction } from './feed.js';
import type { FilteredRead } from './all-filter-query.js';
import * as headers from './headers.js';
import { waitForEvent } from './long-poll-wait.js';
import { sendAs } from './media-types.js';
import { principalOf } from '../principal.js';
import { EmbedLevel, HEAD } from './read-params.js';
import { ALL, chooseType, embedOf } from './read-request.js';
import { baseUrl } from './urls.js';
import { readOffLoop } from '../../../storage/disk/cold-reads.js';
import type { AllPage } from '../../../storage/read/reader.js';

export interface AllRead {
  direction: Direction;
  /** The position as the client wrote it, or `head`. */
  fromText: string;
  count: number;
  /** Only the events this filter accepts (`/streams/$all/filtered…`). */
  filtered?: FilteredRead;
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

/** A page of $all and the log's end when it was read. */
interface PageAt {
  page: AllPage;
  logEnd: number;
}

/** A $all read; a position that is not a record boundary is the client's mistake. */
function readAllPage(service: StreamsService, principal: Principal | undefined, read: AllRead, from: number) {
  try {
    const filter = read.filtered?.filter;
    return read.direction === 'backward'
      ? service.readAllBackward(principal, from, read.count, filter)
      : service.readAllForward(principal, from, read.count, filter);
  } catch (error) {
    if (Errors.invalidArgument.is(error)) throw Errors.httpPathInvalid.create(read.fromText, 'it is not the position of an event in the log');
    throw error;
  }
}

export async function allFeedReply(service: StreamsService, request: FastifyRequest, reply: FastifyReply, read: AllRead): Promise<FastifyReply> {
  const { direction, count } = read;
  const from = direction === 'backward' && read.fromText === 'head' ? HEAD : parseAllPosition(read.fromText);
  headers.checkRequireLeader(request);
  const { type } = chooseType(request, ALL_FEED_TYPES);
  const embed = embedOf(request, type, EmbedLevel.prettyBody);
  const resolveLinks = headers.resolveLinkTos(request, false);
  const longPollSeconds = direction === 'forward' ? headers.longPollSeconds(request) : undefined;
  const principal = principalOf(request);
  // The log's end is taken with the page, in the same turn.
  const readPage = (): Promise<PageAt> => readOffLoop(() => ({ page: readAllPage(service, principal, read, from), logEnd: service.logEnd }));
  const isImmutable = ({ page, logEnd }: PageAt): boolean => direction === 'backward'
    ? from !== HEAD && from <= logEnd
    : page.events.length === count;
  const notModified = (current: PageAt): boolean => !isImmutable(current) && matchesIfNoneMatch(request, current.logEnd, type, service.contentEpoch);

  // Nothing new until the end of the log: wait for an event. A filtered read waits again when
  // the events written meanwhile do not pass its filter.
  const caughtUp = (current: PageAt): boolean =>
    (current.page.events.length === 0 && current.page.isEnd) || notModified(current);
  // Reading, resolving and encoding the page take the event loop: a turn while appends wait.
  const finishTurn = await service.readTurn();
  try {
    let current = await readPage();
    if (longPollSeconds !== undefined) {
      const deadline = Date.now() + longPollSeconds * 1000;
      while (caughtUp(current) && Date.now() < deadline) {
        finishTurn();
        if (!(await waitForEvent(service, reply, ALL, (deadline - Date.now()) / 1000))) break;
        current = await readPage();
      }
    }
    const { page, logEnd } = current;
    let eTag: string | undefined;
    if (isImmutable(current)) {
      setImmutable(reply);
    } else {
      setRevalidated(reply, logEnd, type, service.contentEpoch);
      if (notModified(current)) return sendNotModified(reply);
      eTag = etagValue(logEnd, type, service.contentEpoch);
    }
    const events = page.events;
    let previousPosition: number;
    if (direction === 'forward') {
      previousPosition = events.length > 0 ? events[0].logPosition : from;
    } else if (events.length > 0) {
      // Just after the newest event: where a forward read finds what was written since.
      previousPosition = (await readOffLoop(() => service.readAllForward(principal, events[0].logPosition, 1))).nextPosition;
    } else {
      previousPosition = from === HEAD ? logEnd : from;
    }
    const resolved = await readOffLoop(() => resolveAll(service, principal, events, resolveLinks));
    const pageRead: AllPageRead = { events: resolved, isEnd: page.isEnd, nextPosition: page.nextPosition, previousPosition };
    const feed = allFeed(new EntryUrls(baseUrl(request)), { direction, from, count, embed, filterQuery: read.filtered?.query }, pageRead, eTag);
    return sendAs(reply, type, encodeFeed(type, feed));
  } finally {
    finishTurn();
  }
}
