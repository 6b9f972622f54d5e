/**
 * Feeds and entries as Atom 1.0 XML (`application/atom+xml`), not indented. Atom has no place
 * for the JSON feed's `streamId`, `headOfStream`, `eTag` or the rich entry fields; an entry's
 * content is the event document as XML.
 */
import type { FeedEntry, Link } from './entry.js';
import type { Feed } from './feed.js';
import { XML_DECLARATION, escapeXml } from '../../../common/xml-writer.js';
import { jsonChildren } from './xml-text.js';
const ATOM_NAMESPACE = 'http://www.w3.org/2005/Atom';

function linkXml(link: Link): string {
  return `<link href="${escapeXml(link.uri)}" rel="${escapeXml(link.relation)}" />`;
}

function entryElement(entry: FeedEntry, namespace: string): string {
  let xml = `<entry${namespace}><title>${escapeXml(entry.title)}</title><id>${escapeXml(entry.id)}</id>`
    + `<updated>${entry.updated}</updated><author><name>${escapeXml(entry.author.name)}</name></author>`
    + `<summary>${escapeXml(entry.summary)}</summary>`;
  if (entry.content) {
    xml += `<content type="application/xml">${jsonChildren(entry.content as unknown as Record<string, unknown>)}</content>`;
  }
  if (entry.retryCount !== undefined) xml += `<retryCount>${entry.retryCount}</retryCount>`;
  for (const link of entry.links) xml += linkXml(link);
  return `${xml}</entry>`;
}

export function feedXml(feed: Feed): string {
  let xml = `${XML_DECLARATION}<feed xmlns="${ATOM_NAMESPACE}"><title>${escapeXml(feed.title)}</title>`
    + `<id>${escapeXml(feed.id)}</id><updated>${feed.updated}</updated>`
    + `<author><name>${escapeXml(feed.author.name)}</name></author>`;
  for (const link of feed.links) xml += linkXml(link);
  for (const entry of feed.entries) xml += entryElement(entry, '');
  return `${xml}</feed>`;
}

/** A single entry as a whole document. */
export function entryXml(entry: FeedEntry): string {
  return XML_DECLARATION + entryElement(entry, ` xmlns="${ATOM_NAMESPACE}"`);
}
