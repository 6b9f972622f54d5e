/**
 * The representations of a single event (`GET /streams/{s}/{n}`), in the order a client that
 * names no type gets them: the Atom entry (XML, JSON), the data alone (`application/json`,
 * `text/xml` / `application/xml` as `<data>`, `application/octet-stream` as the raw bytes), and
 * the event document (`vnd.svc.event+json`, `vnd.svc.event+xml`).
 */
import type { ResolvedEvent } from '../../services/streams.js';
import { entryXml } from './atom-xml.js';
import { isJsonEvent } from '../../../storage/log/record.js';
import { dataOf, eventDocument, feedEntry, type EntryUrls } from './entry.js';
import { jsonTextOf, stringifyJson } from './json-text.js';
import { emptyHtml, entryHtml } from './html-view.js';
import { MediaType, type MediaTypeName } from './media-types.js';
import type { EmbedLevel } from './read-params.js';
import { wrap } from '../../../common/xml-writer.js';
import { jsonChildren, jsonElement } from './xml-text.js';

export const SINGLE_EVENT_TYPES: readonly MediaTypeName[] = [
  MediaType.atomXml, MediaType.atomJson, MediaType.json, MediaType.eventJson, MediaType.eventXml,
  MediaType.textXml, MediaType.xml, MediaType.octetStream, MediaType.html,
];

/** The event's data as a JSON value for XML: parsed when it is JSON, its text otherwise. */
function dataValue(resolved: ResolvedEvent): unknown {
  const text = dataOf(resolved.event).toString('utf8');
  return isJsonEvent(resolved.event) ? jsonTextOf(text) ?? text : text;
}

/**
 * `application/json`: the data alone. JSON data is sent as it was stored, byte for byte (its
 * strict form when only the lenient reader reads it); other data (or JSON-flagged data that is
 * not JSON) as a JSON string of its text.
 */
function dataJson(resolved: ResolvedEvent): string | Buffer {
  const bytes = dataOf(resolved.event);
  const text = bytes.toString('utf8');
  const json = isJsonEvent(resolved.event) ? jsonTextOf(text) : undefined;
  if (json === undefined) return JSON.stringify(text);
  return json.text === text ? bytes : json.text;
}

export function encodeEvent(type: MediaTypeName, resolved: ResolvedEvent, urls: EntryUrls, embed: EmbedLevel): string | Buffer {
  switch (type) {
    case MediaType.atomJson:
      return stringifyJson(feedEntry(resolved, urls, embed, true));
    case MediaType.json:
      return dataJson(resolved);
    case MediaType.eventJson:
      return stringifyJson(eventDocument(resolved.event));
    case MediaType.eventXml:
      return wrap('event', jsonChildren(eventDocument(resolved.event) as unknown as Record<string, unknown>));
    case MediaType.textXml:
    case MediaType.xml:
      return jsonElement('data', dataValue(resolved));
    case MediaType.octetStream:
      return dataOf(resolved.event);
    case MediaType.html:
      return entryHtml(feedEntry(resolved, urls, embed, true));
    default:
      return entryXml(feedEntry(resolved, urls, embed, true));
  }
}

/** What a representation of "no event yet" looks like: the metadata of a stream that has none. */
export function emptyRepresentation(type: MediaTypeName): string {
  if (type === MediaType.html) return emptyHtml();
  return type === MediaType.json || type === MediaType.atomJson || type === MediaType.eventJson ? '{}' : '';
}
