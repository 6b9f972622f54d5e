/**
 * The representations of a feed: JSON (`vnd.svc.atom+json`, and the same as `application/json`),
 * Atom XML (`application/atom+xml`, also for `text/xml` and `application/xml`) or an HTML page
 * (`text/html`, for browsers). Stream feeds offer the description document first, so a client
 * that names no type gets it (with 406).
 */
import { feedXml } from './atom-xml.js';
import type { Feed } from './feed.js';
import { feedHtml } from './html-view.js';
import { stringifyJson } from './json-text.js';
import { MediaType, type MediaTypeName } from './media-types.js';

export const STREAM_FEED_TYPES: readonly MediaTypeName[] = [
  MediaType.streamDescJson, MediaType.atomXml, MediaType.atomJson, MediaType.json, MediaType.textXml, MediaType.xml, MediaType.html,
];
export const ALL_FEED_TYPES: readonly MediaTypeName[] = STREAM_FEED_TYPES.slice(1);
const XML_FEED_TYPES = new Set<string>([MediaType.atomXml, MediaType.textXml, MediaType.xml, MediaType.competingAtomXml]);

export function encodeFeed(type: MediaTypeName, feed: Feed): string {
  if (type === MediaType.html) return feedHtml(feed);
  return XML_FEED_TYPES.has(type) ? feedXml(feed) : stringifyJson(feed);
}
