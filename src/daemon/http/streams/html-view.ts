/**
 * `text/html`: feeds and single events as pages for people browsing the API with a web browser
 * (which asks for `text/html` first). Entries come in full, as the wire protocol's HTML codec
 * has them: feeds at the PrettyBody level, single events at TryHarder. The feed's links are the
 * page's navigation, so a stream can be paged through by following them.
 *
 * Event data and names are anyone's text: every one is escaped, and the page is served with a
 * content security policy under which nothing in it may run or load.
 */
import { eventNumberValueText, type FeedEntry, type Link } from './entry.js';
import type { Feed } from './feed.js';

/** Headers of every HTML reply: only the page's own inline style applies. */
export const HTML_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
  'X-Content-Type-Options': 'nosniff',
} as const;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]);
}

const STYLE = [
  'body{font-family:system-ui,sans-serif;margin:1.5em;max-width:72em}',
  'nav a{margin-right:1em}',
  'article{border-top:1px solid #ccc;padding:.5em 0}',
  'dl{display:grid;grid-template-columns:max-content auto;gap:.2em 1em;margin:.5em 0}',
  'dt{color:#555}dd{margin:0}',
  'pre{background:#f5f5f5;padding:.5em;overflow:auto}',
].join('');

function page(title: string, body: string): string {
  const heading = escapeHtml(title);
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${heading}</title><style>${STYLE}</style></head>`
    + `<body><h1>${heading}</h1>${body}</body></html>`;
}

function navigation(links: Link[]): string {
  const anchors = links.map((link) => `<a rel="${escapeHtml(link.relation)}" href="${escapeHtml(link.uri)}">${escapeHtml(link.relation)}</a>`);
  return `<nav>${anchors.join('')}</nav>`;
}

function field(name: string, value: string | number | boolean | undefined): string {
  return value === undefined ? '' : `<dt>${name}</dt><dd>${escapeHtml(String(value))}</dd>`;
}

function block(name: string, text: string | null | undefined): string {
  return text ? `<h3>${name}</h3><pre>${escapeHtml(text)}</pre>` : '';
}

function entrySection(entry: FeedEntry): string {
  const fields = [
    field('Type', entry.summary), field('Updated', entry.updated), field('Event id', entry.eventId),
    field('JSON', entry.isJson), field('Position', entry.positionStreamId === undefined ? undefined : `${eventNumberValueText(entry.positionEventNumber)}@${entry.positionStreamId}`),
  ].join('');
  return `<article><h2><a href="${escapeHtml(entry.id)}">${escapeHtml(entry.title)}</a></h2><dl>${fields}</dl>`
    + `${block('Data', entry.data)}${block('Metadata', entry.metaData)}${block('Link metadata', entry.linkMetaData)}</article>`;
}

export function feedHtml(feed: Feed): string {
  const entries = feed.entries.length === 0 ? '<p>No events on this page.</p>' : feed.entries.map(entrySection).join('');
  return page(feed.title, navigation(feed.links) + entries);
}

export function entryHtml(entry: FeedEntry): string {
  return page(entry.title, navigation(entry.links) + entrySection(entry));
}

/** The page of a stream's metadata when the stream has none yet. */
export function emptyHtml(): string {
  return page('No metadata', '<p>The stream has no metadata.</p>');
}
