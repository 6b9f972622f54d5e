/**
 * Feed entries: one per event, as much of the event as the embed level asks for. The same plain
 * object is serialized as JSON (`JSON.stringify`) or as Atom XML (atom-xml.ts), which ignores the
 * rich fields the Atom format has no place for.
 */
import { EventFlags, isJsonEvent, type EventRecord } from '../../../storage/record.js';
import type { ResolvedEvent } from '../../services/streams.js';
import { indentJsonObject } from './json-indent.js';
import { jsonTextOf, type JsonText } from './json-text.js';
import { EmbedLevel } from './read-params.js';
import { streamUrl } from './urls.js';

export interface Link {
  uri: string;
  relation: string;
}

export interface Author {
  name: string;
}

export const AUTHOR: Author = Object.freeze({ name: 'svcdb' });

/** An event as a document: the `content` of an entry and the `vnd.svc.event+json` representation. */
export interface EventDocument {
  eventStreamId: string;
  eventNumber: number;
  eventType: string;
  eventId: string;
  /** JSON data as stored (spliced into JSON replies verbatim), or the text of other data. */
  data: JsonText | string;
  metadata: JsonText | string;
}

export interface FeedEntry {
  eventId?: string;
  eventType?: string;
  eventNumber?: number;
  data?: string;
  metaData?: string | null;
  linkMetaData?: string;
  streamId?: string;
  isJson?: boolean;
  isMetaData?: boolean;
  isLinkMetaData?: boolean;
  isRedacted?: boolean;
  positionEventNumber?: number;
  positionStreamId?: string;
  title: string;
  id: string;
  updated: string;
  author: Author;
  summary: string;
  content?: EventDocument;
  links: Link[];
}

const EMPTY = Buffer.alloc(0);

let cachedSecond = Number.NaN;
let cachedSecondText = '';

/**
 * ISO-8601 UTC of a timestamp in ms (`2017-12-15T12:19:32.021Z`). The events of a page mostly
 * fall in one second, so the text up to the second is kept and only the milliseconds are added.
 */
export function isoDate(timestampMs: number): string {
  const second = Math.floor(timestampMs / 1000);
  if (second !== cachedSecond) {
    cachedSecondText = new Date(second * 1000).toISOString().slice(0, 19);
    cachedSecond = second;
  }
  const millis = timestampMs - second * 1000;
  return `${cachedSecondText}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}

/** Event and stream URLs for one reply, each stream escaped once however many entries name it. */
export class EntryUrls {
  private readonly streams = new Map<string, string>();

  constructor(readonly base: string) {}

  stream(streamName: string): string {
    let url = this.streams.get(streamName);
    if (url === undefined) {
      url = streamUrl(this.base, streamName);
      this.streams.set(streamName, url);
    }
    return url;
  }

  event(streamName: string, eventNumber: number): string {
    return `${this.stream(streamName)}/${eventNumber}`;
  }
}


/** A redacted event's data bytes were overwritten; they are shown as empty. */
export function dataOf(event: EventRecord): Buffer {
  return (event.flags & EventFlags.isRedacted) !== 0 ? EMPTY : event.data;
}

export function eventDocument(event: EventRecord): EventDocument {
  const data = dataOf(event).toString('utf8');
  const metadata = event.metadata.length === 0 ? '' : event.metadata.toString('utf8');
  const json = isJsonEvent(event);
  return {
    eventStreamId: event.streamName,
    eventNumber: event.eventNumber,
    eventType: event.eventType,
    eventId: event.eventId,
    data: json ? jsonTextOf(data) ?? data : data,
    metadata: json ? jsonTextOf(metadata) ?? metadata : metadata,
  };
}

function bodyText(bytes: Buffer, pretty: boolean): string {
  const text = bytes.toString('utf8');
  return pretty ? indentJsonObject(text) ?? text : text;
}

/** The fields of the rich levels (rich, body, pretty, tryharder), ahead of the plain entry's. */
function richFields(resolved: ResolvedEvent, embed: EmbedLevel): Partial<FeedEntry> {
  const { event, link } = resolved;
  const position = link ?? event;
  const rich: Partial<FeedEntry> = {
    eventId: event.eventId,
    eventType: event.eventType,
    eventNumber: event.eventNumber,
    streamId: event.streamName,
    isJson: isJsonEvent(event),
    isMetaData: event.metadata.length > 0,
    isLinkMetaData: link !== undefined && link.metadata.length > 0,
    isRedacted: (event.flags & EventFlags.isRedacted) !== 0,
    positionEventNumber: position.eventNumber,
    positionStreamId: position.streamName,
  };
  if (embed < EmbedLevel.body) return rich;
  const pretty = embed >= EmbedLevel.prettyBody;
  if (rich.isJson) {
    rich.data = bodyText(dataOf(event), pretty);
  } else if (embed >= EmbedLevel.tryHarder) {
    const tried = indentJsonObject(dataOf(event).toString('utf8'));
    if (tried !== undefined) {
      rich.data = tried;
      rich.isJson = true;
    }
  }
  rich.metaData = event.metadata.length > 0 ? bodyText(event.metadata, pretty) : null;
  if (link) rich.linkMetaData = bodyText(link.metadata, pretty);
  return rich;
}

/**
 * The entry of one event. A resolved link is described by its target (title, id, links), with
 * the link's time and type. `single`: the entry is the whole reply (a single event read), which
 * always carries the content of a JSON event.
 */
export function feedEntry(resolved: ResolvedEvent, urls: EntryUrls, embed: EmbedLevel, single = false): FeedEntry {
  const { event, link } = resolved;
  const url = urls.event(event.streamName, event.eventNumber);
  const withContent = (single || embed === EmbedLevel.content) && isJsonEvent(event);
  const plain: FeedEntry = {
    title: `${event.eventNumber}@${event.streamName}`,
    id: url,
    updated: isoDate((link ?? event).timestamp),
    author: AUTHOR,
    summary: (link ?? event).eventType,
    content: withContent ? eventDocument(event) : undefined,
    links: [{ uri: url, relation: 'edit' }, { uri: url, relation: 'alternate' }],
  };
  return embed >= EmbedLevel.rich ? { ...richFields(resolved, embed), ...plain } : plain;
}
