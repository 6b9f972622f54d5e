/**
 * Feed entries: one per event, as much of the event as the embed level asks for. The same plain
 * object is serialized as JSON (`JSON.stringify`) or as Atom XML (atom-xml.ts), which ignores the
 * rich fields the Atom format has no place for.
 */
import { isUtf8 } from 'node:buffer';
import { EventFlags, isJsonEvent, type EventRecord } from '../../../storage/log/record.js';
import { DELETED_EVENT_NUMBER, EVENT_NUMBER_MAX_TEXT, eventNumberText } from '../../../storage/streams/stream-metadata.js';
import type { ResolvedEvent } from '../../services/streams.js';
import { indentJsonObject } from './json-indent.js';
import { JsonText, jsonTextOf } from './json-text.js';
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
  eventNumber: EventNumberValue;
  eventType: string;
  eventId: string;
  /** JSON data as stored (spliced into JSON replies verbatim), or the text of other data. */
  data: JsonText | string;
  metadata: JsonText | string;
}

export interface FeedEntry {
  eventId?: string;
  eventType?: string;
  eventNumber?: EventNumberValue;
  /** Null at body and pretty for an event not flagged JSON: clients parse `data` when it is set. */
  data?: string | null;
  metaData?: string | null;
  linkMetaData?: string;
  streamId?: string;
  isJson?: boolean;
  isMetaData?: boolean;
  isLinkMetaData?: boolean;
  isRedacted?: boolean;
  positionEventNumber?: EventNumberValue;
  positionStreamId?: string;
  title: string;
  id: string;
  updated: string;
  author: Author;
  summary: string;
  content?: EventDocument;
  /** Entries of a subscription's messages: how often the message was delivered before. */
  retryCount?: number;
  links: Link[];
}

const EMPTY = Buffer.alloc(0);

/** An event number in a JSON reply: a tombstone's is 9223372036854775807, which a number cannot hold. */
export type EventNumberValue = number | JsonText;

const EVENT_NUMBER_MAX_JSON = new JsonText(EVENT_NUMBER_MAX_TEXT);

export function eventNumberValue(eventNumber: number): EventNumberValue {
  return eventNumber === DELETED_EVENT_NUMBER ? EVENT_NUMBER_MAX_JSON : eventNumber;
}

/** An event number as text, exact for a tombstone's too. */
export function eventNumberValueText(value: EventNumberValue | undefined): string {
  return value instanceof JsonText ? value.text : String(value);
}

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
    return `${this.stream(streamName)}/${eventNumberText(eventNumber)}`;
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
    eventNumber: eventNumberValue(event.eventNumber),
    eventType: event.eventType,
    eventId: event.eventId,
    data: json ? jsonTextOf(data) ?? data : data,
    metadata: json ? jsonTextOf(metadata) ?? metadata : metadata,
  };
}

/** JSON text for `data` and `metaData`: as stored, in its strict form if only the lenient reader reads it. */
function bodyText(bytes: Buffer, pretty: boolean): string {
  const text = bytes.toString('utf8');
  return pretty ? indentJsonObject(text) ?? text : jsonTextOf(text)?.text ?? text;
}

/** Bytes that are not UTF-8 (binary) have no text to show. */
function textOf(bytes: Buffer): string | undefined {
  return isUtf8(bytes) ? bytes.toString('utf8') : undefined;
}

/** The fields of the rich levels (rich, body, pretty, tryharder), ahead of the plain entry's. */
function richFields(resolved: ResolvedEvent, embed: EmbedLevel): Partial<FeedEntry> {
  const { event, link } = resolved;
  const position = link ?? event;
  const rich: Partial<FeedEntry> = {
    eventId: event.eventId,
    eventType: event.eventType,
    eventNumber: eventNumberValue(event.eventNumber),
    streamId: event.streamName,
    isJson: isJsonEvent(event),
    isMetaData: event.metadata.length > 0,
    isLinkMetaData: link !== undefined && link.metadata.length > 0,
    isRedacted: (event.flags & EventFlags.isRedacted) !== 0,
    positionEventNumber: eventNumberValue(position.eventNumber),
    positionStreamId: position.streamName,
  };
  if (embed < EmbedLevel.body) return rich;
  const pretty = embed >= EmbedLevel.prettyBody;
  const metadataText = event.metadata.length > 0 ? textOf(event.metadata) : undefined;
  if (rich.isJson) {
    rich.data = bodyText(dataOf(event), pretty);
    rich.metaData = metadataText === undefined ? null : bodyText(event.metadata, pretty);
  } else if (embed >= EmbedLevel.tryHarder) {
    // Only tryharder shows what is not flagged JSON: its text, read as JSON if it is an object.
    const text = textOf(dataOf(event));
    const tried = text !== undefined ? indentJsonObject(text) : undefined;
    if (tried !== undefined) rich.isJson = true;
    rich.data = tried ?? text;
    rich.metaData = metadataText ?? null;
  } else {
    // Body and pretty carry the data of JSON events only; clients parse `data` when it is set.
    rich.data = null;
    rich.metaData = null;
  }
  if (link) rich.linkMetaData = bodyText(link.metadata, pretty);
  return rich;
}

/**
 * The entry of one event. A resolved link is described by its target (title, id, links), with
 * the link's time and type. `single`: the entry is the whole reply (a single event read), which
 * always carries the content of a JSON event.
 */
export function feedEntry(resolved: ResolvedEvent, urls: EntryUrls, embed: EmbedLevel, single = false): FeedEntry {
  const { event, link, missingTarget } = resolved;
  const url = urls.event(event.streamName, event.eventNumber);
  // A link whose target is gone still points at the target, as the reference's entries do.
  const target = missingTarget ? urls.event(missingTarget.streamName, missingTarget.eventNumber) : url;
  const withContent = (single || embed === EmbedLevel.content) && isJsonEvent(event);
  const plain: FeedEntry = {
    title: `${eventNumberText(event.eventNumber)}@${event.streamName}`,
    id: url,
    updated: isoDate((link ?? event).timestamp),
    author: AUTHOR,
    summary: (link ?? event).eventType,
    content: withContent ? eventDocument(event) : undefined,
    links: [{ uri: target, relation: 'edit' }, { uri: target, relation: 'alternate' }],
  };
  return embed >= EmbedLevel.rich ? { ...richFields(resolved, embed), ...plain } : plain;
}
