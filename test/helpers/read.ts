/**
 * Reading over HTTP in tests: GET with headers, feeds parsed, links by relation with the node's
 * base URL taken off so expectations read like the wire note's formulas.
 */
import { XMLParser } from 'fast-xml-parser';
import { adminFetch } from './auth.js';
import type { TestNode } from './node.js';

export const ATOM_JSON = 'application/vnd.svc.atom+json';
export const ATOM_XML = 'application/atom+xml';

export interface Reply {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

/** A GET as the default admin, unless `headers` carry their own Authorization. */
export async function get(node: TestNode, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  const response = await adminFetch(node.url + path, { headers });
  return { status: response.status, statusText: response.statusText, headers: response.headers, text: await response.text() };
}

export interface FeedLink {
  uri: string;
  relation: string;
}

export interface JsonFeed {
  title: string;
  id: string;
  updated: string;
  streamId?: string;
  headOfStream: boolean;
  selfUrl?: string;
  eTag?: string;
  links: FeedLink[];
  entries: Array<Record<string, unknown> & { title: string; id: string; summary: string; links: FeedLink[] }>;
}

/** A feed in JSON; fails the test with the reply when it is not a 200. */
export async function getFeed(node: TestNode, path: string, headers: Record<string, string> = {}): Promise<JsonFeed & { reply: Reply }> {
  const reply = await get(node, path, { accept: ATOM_JSON, ...headers });
  if (reply.status !== 200) throw new Error(`GET ${path}: ${reply.status} ${reply.text}`);
  return { ...(JSON.parse(reply.text) as JsonFeed), reply };
}

/** relation → path (base URL removed), in the feed's order. */
export function linksOf(node: TestNode, links: FeedLink[]): Record<string, string> {
  const byRelation: Record<string, string> = {};
  for (const link of links) byRelation[link.relation] = link.uri.startsWith(node.url) ? link.uri.slice(node.url.length) : link.uri;
  return byRelation;
}

export function titlesOf(feed: JsonFeed): string[] {
  return feed.entries.map((entry) => entry.title);
}

/** More pages than any test feed has: links that go on past it run in a circle. */
const LINKED_PAGES_MAX = 1000;

/** The feed at `path` and every feed reached from it by `relation` links, in order, until a page has none. */
export async function followLinks(node: TestNode, path: string, relation: 'next' | 'previous'): Promise<Array<JsonFeed & { reply: Reply }>> {
  const pages = [await getFeed(node, path)];
  for (let next = linksOf(node, pages[0].links)[relation]; next !== undefined; next = linksOf(node, pages.at(-1)!.links)[relation]) {
    if (pages.length === LINKED_PAGES_MAX) throw new Error(`${relation} links from ${path} still go on after ${LINKED_PAGES_MAX} pages`);
    pages.push(await getFeed(node, next));
  }
  return pages;
}

/** Parses XML, keeping attributes (`@_name`) and always making `entry` and `link` lists. */
export function parseXml(text: string): Record<string, any> {
  const parser = new XMLParser({
    ignoreAttributes: false,
    parseTagValue: false,
    isArray: (name) => name === 'entry' || name === 'link',
  });
  return parser.parse(text, true) as Record<string, any>;
}

export async function errorCode(reply: Reply): Promise<string> {
  return (JSON.parse(reply.text) as { code: string }).code;
}
