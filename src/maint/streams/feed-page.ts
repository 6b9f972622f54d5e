/**
 * One page of a stream's (or $all's) feed, read with `embed=body`: each entry carries its data
 * and metadata as strings, the stored text, so parsing the page changes no byte of them.
 */
import { Errors } from '../../common/errors.js';
import type { NodeClient } from '../node-client/node-client.js';
import { replyError } from '../node-client/node-request.js';
import { Header, MediaType, streamPath } from './wire.js';

/**
 * A page at `embed=body` carries the data of JSON events only; the data of others is read one
 * by one as the bytes stored (`application/octet-stream`), since a richer embed level re-indents.
 */
async function storedData(client: NodeClient, event: ReadEvent): Promise<string> {
  const reply = await client.request({
    method: 'GET', path: `${streamPath(event.stream)}/${event.eventNumber}`, accept: 'application/octet-stream', replyBytesMax: PAGE_BYTES_MAX,
  });
  if (reply.status !== 200) throw replyError(client.connection, reply);
  return reply.body;
}

/** An event as the stream commands show it. */
export interface ReadEvent {
  stream: string;
  /** The event number as the node wrote it (exact, even a tombstone's 2^63-1). */
  eventNumber: string;
  eventType: string;
  eventId: string;
  /** When it was written, ISO 8601. */
  created: string;
  isJson: boolean;
  /** The stored data as text (empty when redacted). */
  data: string;
  /** The stored metadata as text; empty when there is none. */
  metadata: string;
}

export interface FeedPage {
  /** Oldest first, whichever way the page was read. */
  events: ReadEvent[];
  /** The node's links by relation (`previous`: newer events; `next`: older ones). */
  links: Map<string, string>;
  /** A forward page of a stream that reached the end of the stream. */
  headOfStream: boolean;
  /** 404: the stream does not exist (yet). */
  missing: boolean;
}

interface FeedEntryJson {
  title?: unknown;
  eventId?: unknown;
  eventType?: unknown;
  updated?: unknown;
  isJson?: unknown;
  data?: unknown;
  metaData?: unknown;
  isRedacted?: unknown;
}

interface FeedJson {
  entries?: FeedEntryJson[];
  links?: { uri?: unknown; relation?: unknown }[];
  headOfStream?: unknown;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The number and stream of an entry from its title `{n}@{stream}`, exact as text. */
function eventOf(entry: FeedEntryJson): { event: ReadEvent; dataShown: boolean } | undefined {
  const title = text(entry.title);
  const at = title.indexOf('@');
  if (at < 1 || typeof entry.eventType !== 'string') return undefined;
  const event: ReadEvent = {
    stream: title.slice(at + 1),
    eventNumber: title.slice(0, at),
    eventType: entry.eventType,
    eventId: text(entry.eventId),
    created: text(entry.updated),
    isJson: entry.isJson === true,
    data: typeof entry.data === 'string' ? entry.data : '',
    metadata: typeof entry.metaData === 'string' ? entry.metaData : '',
  };
  return { event, dataShown: typeof entry.data === 'string' || entry.isRedacted === true };
}

/** `path` with `embed=body` added to its query. */
function withBody(path: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}embed=body`;
}

export interface PageRequest {
  path: string;
  /** Svc-LongPoll: wait up to this long for an event when the page would be empty. */
  longPollSeconds?: number;
  /** A 404 is a page with `missing` set instead of an error (a tail waits for the stream). */
  missingIsEmpty?: boolean;
}

/** Replies of a full page of large events are large; this bounds what one page may take. */
const PAGE_BYTES_MAX = 256 * 1024 * 1024;

export async function readFeedPage(client: NodeClient, request: PageRequest): Promise<FeedPage> {
  const longPoll = request.longPollSeconds;
  const reply = await client.request({
    method: 'GET',
    path: withBody(request.path),
    accept: MediaType.atomJson,
    replyBytesMax: PAGE_BYTES_MAX,
    ...(longPoll !== undefined && { headers: { [Header.longPoll]: String(longPoll) }, timeoutMs: client.connection.timeoutMs + longPoll * 1000 }),
  });
  if (reply.status === 404 && request.missingIsEmpty) return { events: [], links: new Map(), headOfStream: false, missing: true };
  if (reply.status !== 200) throw replyError(client.connection, reply);
  let feed: FeedJson;
  try {
    feed = JSON.parse(reply.body) as FeedJson;
  } catch {
    throw Errors.clientUnexpectedReply.create(`the node at ${client.url}`, `answered GET ${request.path} with a feed that is not JSON`);
  }
  const events: ReadEvent[] = [];
  for (const entry of feed.entries ?? []) {
    const read = eventOf(entry);
    if (read === undefined) continue;
    if (!read.dataShown) read.event.data = await storedData(client, read.event);
    events.push(read.event);
  }
  // Entries come newest first on every page.
  events.reverse();
  const links = new Map<string, string>();
  for (const link of feed.links ?? []) if (typeof link.uri === 'string' && typeof link.relation === 'string') links.set(link.relation, link.uri);
  return { events, links, headOfStream: feed.headOfStream === true, missing: false };
}
