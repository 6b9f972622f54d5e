/**
 * The feed of a page of events: title, the navigation links and the entries, newest first. The
 * link formulas are the wire protocol's, so clients can page both ways and poll for new events:
 * F is the page's start, C its count, L the stream's last event number.
 *  - backward: `first` = head/backward/C; while older events remain `last` = 0/forward/C and
 *    `next` = (F-C)/backward/C; always `previous` = (min(F,L)+1)/forward/C.
 *  - forward: `first` as above; when F > 0 `last` = 0/forward/C and `next` = (F-1)/backward/C;
 *    `previous` = (min(F+C-1,L)+1)/forward/C except on an empty page at the end (caught up).
 *  - `metadata` unless the stream is itself a metadata stream.
 */
import { isMetadataStream } from '../../../storage/streams/stream-metadata.js';
import type { ResolvedEvent, ResolvedPage } from '../../services/streams.js';
import { formatAllPosition, START_POSITION_TEXT } from './all-positions.js';
import { AUTHOR, feedEntry, type Author, type EntryUrls, type FeedEntry, type Link } from './entry.js';
import { HEAD, type EmbedLevel } from './read-params.js';

/** `updated` of a feed without entries. */
export const NO_DATE = '0001-01-01T00:00:00Z';

export interface Feed {
  title: string;
  id: string;
  updated: string;
  streamId?: string;
  author: Author;
  headOfStream: boolean;
  selfUrl?: string;
  eTag?: string;
  links: Link[];
  entries: FeedEntry[];
}

export type Direction = 'backward' | 'forward';

export interface StreamPageRequest {
  streamName: string;
  direction: Direction;
  /** The requested start: an event number, or HEAD (backward only). */
  from: number;
  count: number;
  embed: EmbedLevel;
}

/** Entries newest first, whichever way the page was read. */
function entriesOf(events: ResolvedEvent[], ascending: boolean, urls: EntryUrls, embed: EmbedLevel): FeedEntry[] {
  const entries = new Array<FeedEntry>(events.length);
  for (let i = 0; i < events.length; i++) {
    entries[ascending ? events.length - 1 - i : i] = feedEntry(events[i], urls, embed);
  }
  return entries;
}

export function link(uri: string, relation: string): Link {
  return { uri, relation };
}

function streamLinks(self: string, request: StreamPageRequest, page: ResolvedPage): Link[] {
  const count = request.count;
  const last = page.lastEventNumber;
  const links = [link(self, 'self'), link(`${self}/head/backward/${count}`, 'first')];
  if (request.direction === 'backward') {
    const from = request.from === HEAD ? last : request.from;
    if (!page.isEndOfStream) {
      links.push(link(`${self}/0/forward/${count}`, 'last'), link(`${self}/${from - count}/backward/${count}`, 'next'));
    }
    links.push(link(`${self}/${Math.min(from, last) + 1}/forward/${count}`, 'previous'));
  } else {
    const from = request.from;
    if (from > 0) links.push(link(`${self}/0/forward/${count}`, 'last'), link(`${self}/${from - 1}/backward/${count}`, 'next'));
    if (!page.isEndOfStream || page.events.length > 0) {
      links.push(link(`${self}/${Math.min(from + count - 1, last) + 1}/forward/${count}`, 'previous'));
    }
  }
  if (!isMetadataStream(request.streamName)) links.push(link(`${self}/metadata`, 'metadata'));
  return links;
}

/** `eTag`: the JSON body shows the head page's ETag (backward reads of the head only). */
export function streamFeed(urls: EntryUrls, request: StreamPageRequest, page: ResolvedPage, eTag?: string): Feed {
  const self = urls.stream(request.streamName);
  const backward = request.direction === 'backward';
  const entries = entriesOf(page.events, !backward, urls, request.embed);
  return {
    title: `Event stream '${request.streamName}'`,
    id: self,
    updated: entries.length > 0 ? entries[0].updated : NO_DATE,
    streamId: request.streamName,
    author: AUTHOR,
    headOfStream: backward ? request.from === HEAD : page.isEndOfStream,
    selfUrl: backward ? self : undefined,
    eTag: backward && request.from === HEAD ? eTag : undefined,
    links: streamLinks(self, request, page),
    entries,
  };
}

export interface AllPageRequest {
  direction: Direction;
  /** The requested log position, or HEAD (backward only). */
  from: number;
  count: number;
  embed: EmbedLevel;
  /** A filtered read's filter as a query string: its links keep it, under `/filtered`. */
  filterQuery?: string;
}

export interface AllPageRead {
  events: ResolvedEvent[];
  isEnd: boolean;
  /** Where the next page in the read's direction starts. */
  nextPosition: number;
  /** Where a page in the other direction starts: just after the newest event (backward), at the oldest (forward). */
  previousPosition: number;
}

/**
 * The `$all` feed. Its links name positions: backward pages link `next` to the position of their
 * oldest event and `previous` to the position after their newest; forward pages the other way.
 * A filtered feed's links stay under `/filtered` with the filter's query.
 */
export function allFeed(urls: EntryUrls, request: AllPageRequest, page: AllPageRead, eTag?: string): Feed {
  const { count, filterQuery } = request;
  const filtered = filterQuery !== undefined;
  const root = `${urls.base}/streams/%24all${filtered ? '/filtered' : ''}`;
  const query = filtered && filterQuery !== '' ? `?${filterQuery}` : '';
  const self = root + query;
  const pageUrl = (position: string, direction: Direction) => `${root}/${position}/${direction}/${count}${query}`;
  const backward = request.direction === 'backward';
  const links = [link(self, 'self'), link(pageUrl('head', 'backward'), 'first')];
  if (backward) {
    if (!page.isEnd) {
      links.push(
        link(pageUrl(START_POSITION_TEXT, 'forward'), 'last'),
        link(pageUrl(formatAllPosition(page.nextPosition), 'backward'), 'next'),
      );
    }
    links.push(link(pageUrl(formatAllPosition(page.previousPosition), 'forward'), 'previous'));
  } else {
    if (request.from !== 0) {
      links.push(
        link(pageUrl(START_POSITION_TEXT, 'forward'), 'last'),
        link(pageUrl(formatAllPosition(page.previousPosition), 'backward'), 'next'),
      );
    }
    if (!page.isEnd || page.events.length > 0) {
      links.push(link(pageUrl(formatAllPosition(page.nextPosition), 'forward'), 'previous'));
    }
  }
  // A filtered feed has no metadata of its own.
  if (!filtered) links.push(link(`${root}/metadata`, 'metadata'));
  const entries = entriesOf(page.events, !backward, urls, request.embed);
  return {
    title: 'All events',
    id: self,
    updated: entries.length > 0 ? entries[0].updated : NO_DATE,
    author: AUTHOR,
    headOfStream: false,
    selfUrl: backward ? self : undefined,
    eTag: backward && request.from === HEAD ? eTag : undefined,
    links,
    entries,
  };
}
