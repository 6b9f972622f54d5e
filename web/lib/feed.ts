/**
 * Reading the node's Atom feeds (JSON form) for the stream browser: which page a feed link
 * leads to, and what each entry is (an event, or a `$>` link to one).
 */
export interface FeedLink {
  uri: string;
  relation: string;
}

export interface FeedEntry {
  title: string;
  id: string;
  updated: string;
  summary: string;
  eventId?: string;
  eventType?: string;
  eventNumber?: number | string;
  streamId?: string;
  isJson?: boolean;
  /** The event's data was removed by `svcdb redact`; only entries with rich fields say so. */
  isRedacted?: boolean;
  /** Null at embed=body for an event not flagged JSON; tryharder carries its text. */
  data?: string | null;
  metaData?: string | null;
  linkMetaData?: string;
  positionEventNumber?: number | string;
  positionStreamId?: string;
  links: FeedLink[];
}

export interface Feed {
  title: string;
  streamId?: string;
  headOfStream?: boolean;
  links: FeedLink[];
  entries: FeedEntry[];
}

export const PAGE_SIZE = 20;
export const LINK_EVENT_TYPE = '$>';

export type Direction = 'forward' | 'backward';

export interface PagePosition {
  stream: string;
  from: string;
  direction: Direction;
}

/** The API path of one page of a stream, with event bodies: tryharder, the one level that carries the text of events not flagged JSON too. */
export function pagePath(stream: string, from = 'head', direction: Direction = 'backward', count = PAGE_SIZE): string {
  return `/streams/${encodeURIComponent(stream)}/${encodeURIComponent(from)}/${direction}/${count}?embed=tryharder`;
}

const PAGE_LINK = /^\/streams\/([^/]+)\/(head|[0-9]+|[0-9A-F]{32})\/(forward|backward)\/[0-9]+$/;

/** Where a feed link leads, or undefined for a link that is not a page of a stream. */
export function pageOfLink(uri: string): PagePosition | undefined {
  let path: string;
  try {
    path = new URL(uri, 'http://placeholder').pathname;
  } catch {
    return undefined;
  }
  const match = PAGE_LINK.exec(path);
  if (!match) return undefined;
  return { stream: decodeURIComponent(match[1]), from: match[2], direction: match[3] as Direction };
}

export function linkOf(links: readonly FeedLink[], relation: string): FeedLink | undefined {
  return links.find((link) => link.relation === relation);
}

/** The pages a feed links to, by the console's names for them. */
export function navigation(feed: Feed): Partial<Record<'newest' | 'newer' | 'older' | 'oldest', PagePosition>> {
  const at = (relation: string) => {
    const link = linkOf(feed.links, relation);
    return link ? pageOfLink(link.uri) : undefined;
  };
  return { newest: at('first'), newer: at('previous'), older: at('next'), oldest: at('last') };
}

export interface EventReference {
  stream: string;
  eventNumber: string;
}

/** The event a `$>` link's data names (`{number}@{stream}`), or undefined when it names none. */
export function linkTarget(data: string | null | undefined): EventReference | undefined {
  if (data === undefined || data === null) return undefined;
  const match = /^\s*([0-9]+)@(.+)$/s.exec(data);
  return match ? { eventNumber: match[1], stream: match[2] } : undefined;
}

/** For an entry read through a link, the link itself; undefined for an event read directly. */
export function viaLink(entry: FeedEntry): EventReference | undefined {
  if (entry.positionStreamId === undefined || entry.positionEventNumber === undefined) return undefined;
  if (entry.positionStreamId === entry.streamId && String(entry.positionEventNumber) === String(entry.eventNumber)) return undefined;
  return { stream: entry.positionStreamId, eventNumber: String(entry.positionEventNumber) };
}

/** The stream and number an entry's title names (`{number}@{stream}`). */
export function entryReference(entry: FeedEntry): EventReference | undefined {
  if (entry.streamId !== undefined && entry.eventNumber !== undefined) return { stream: entry.streamId, eventNumber: String(entry.eventNumber) };
  return linkTarget(entry.title);
}
