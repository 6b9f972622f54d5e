/**
 * Persistent subscriptions over HTTP in tests: groups created as the default admin, events
 * appended in batches, and consumers that take, ack and nack messages through the links the
 * competing-consumer feed gives them.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { Test } from 'tap';
import { SubscriptionsService } from '../../src/daemon/subscriptions/service.js';
import { SystemStreams } from '../../src/daemon/subscriptions/system-streams.js';
import { adminFetch } from './auth.js';
import type { TestNode } from './node.js';

export const COMPETING_JSON = 'application/vnd.svc.competingatom+json';

export interface CompetingEntry {
  title: string;
  id: string;
  summary: string;
  retryCount: number;
  links: Array<{ uri: string; relation: string }>;
  eventNumber?: number;
  streamId?: string;
  content?: { eventNumber: number; eventStreamId: string; data: unknown };
  [key: string]: unknown;
}

export interface CompetingFeed {
  title: string;
  links: Array<{ uri: string; relation: string }>;
  entries: CompetingEntry[];
}

export interface Taken {
  /** Event numbers of the entries in delivery order, from their titles (`n@stream`). */
  numbers: number[];
  /** In delivery order, oldest first: the feed lists them newest first. */
  entries: CompetingEntry[];
  feed: CompetingFeed;
  /** The message id of each entry, from its ack link, in delivery order. */
  ids: string[];
}

export function groupUrl(url: string, stream: string, group: string): string {
  return `${url}/subscriptions/${encodeURIComponent(stream)}/${encodeURIComponent(group)}`;
}

export async function createGroup(url: string, stream: string, group: string, settings: Record<string, unknown> = {}, auth?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (auth) headers.authorization = auth;
  return adminFetch(groupUrl(url, stream, group), { method: 'PUT', headers, body: JSON.stringify(settings) });
}

/** Creates the group and fails unless it was created. */
export async function mustCreateGroup(url: string, stream: string, group: string, settings: Record<string, unknown> = {}): Promise<void> {
  const response = await createGroup(url, stream, group, settings);
  if (response.status !== 201) throw new Error(`creating ${stream}/${group}: ${response.status} ${await response.text()}`);
}

/** Appends `count` JSON events `{"n":i}` in one batch; returns their ids. */
export async function appendEvents(url: string, stream: string, count: number, extra: (i: number) => Record<string, unknown> = () => ({})): Promise<string[]> {
  const events = Array.from({ length: count }, (_, i) => ({ eventId: randomUUID(), eventType: 'Thing', data: { n: i }, ...extra(i) }));
  const response = await adminFetch(`${url}/streams/${encodeURIComponent(stream)}`, {
    method: 'POST', headers: { 'content-type': 'application/vnd.svc.events+json' }, body: JSON.stringify(events),
  });
  if (response.status !== 201) throw new Error(`appending to ${stream}: ${response.status} ${await response.text()}`);
  return events.map((event) => event.eventId);
}

export interface TakeOptions {
  consumer?: string;
  auth?: string;
  embed?: string;
  headers?: Record<string, string>;
}

export async function takeResponse(url: string, stream: string, group: string, count: number, options: TakeOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { accept: COMPETING_JSON, ...options.headers };
  if (options.consumer) headers['svc-connectionname'] = options.consumer;
  if (options.auth) headers.authorization = options.auth;
  const query = options.embed ? `?embed=${options.embed}` : '';
  return adminFetch(`${groupUrl(url, stream, group)}/${count}${query}`, { headers });
}

export function takenOf(feed: CompetingFeed): Taken {
  const entries = [...feed.entries].reverse();
  return {
    feed, entries,
    numbers: entries.map((entry) => Number(entry.title.split('@')[0])),
    ids: entries.map((entry) => entry.links.find((link) => link.relation === 'ack')!.uri.split('/').pop()!),
  };
}

/** Takes up to `count` messages as `options.consumer`; fails unless the reply is a feed. */
export async function take(url: string, stream: string, group: string, count: number, options: TakeOptions = {}): Promise<Taken> {
  const response = await takeResponse(url, stream, group, count, options);
  if (response.status !== 200) throw new Error(`taking from ${stream}/${group}: ${response.status} ${await response.text()}`);
  return takenOf(await response.json() as CompetingFeed);
}

export async function post(url: string, auth?: string): Promise<Response> {
  return adminFetch(url, { method: 'POST', headers: auth ? { authorization: auth } : {} });
}

export async function ack(url: string, stream: string, group: string, ids: string[]): Promise<Response> {
  return post(`${groupUrl(url, stream, group)}/ack?ids=${ids.join(',')}`);
}

export async function nack(url: string, stream: string, group: string, ids: string[], action: string, consumer?: string): Promise<Response> {
  return adminFetch(`${groupUrl(url, stream, group)}/nack?ids=${ids.join(',')}&action=${action}`, {
    method: 'POST', headers: consumer ? { 'svc-connectionname': consumer } : {},
  });
}

export async function info(url: string, stream: string, group: string): Promise<Record<string, unknown>> {
  const response = await adminFetch(`${groupUrl(url, stream, group)}/info`, { headers: { accept: 'application/json' } });
  if (response.status !== 200) throw new Error(`info of ${stream}/${group}: ${response.status} ${await response.text()}`);
  return await response.json() as Record<string, unknown>;
}

/** Event numbers in the parked stream of the group, as their links say (`n@stream`). */
export async function parkedNumbers(url: string, stream: string, group: string): Promise<number[]> {
  const parked = `$persistentsubscription-${stream}::${group}-parked`;
  const response = await adminFetch(`${url}/streams/${encodeURIComponent(parked)}/0/forward/4096?embed=tryharder`, {
    headers: { accept: 'application/vnd.svc.atom+json', 'svc-resolvelinktos': 'false' },
  });
  if (response.status === 404) return [];
  const feed = await response.json() as { entries: Array<{ data: string }> };
  return feed.entries.map((entry) => Number(entry.data.split('@')[0])).reverse();
}

/** The group's last checkpoint as its checkpoint stream holds it; undefined before the first. */
export async function checkpointOf(url: string, stream: string, group: string, auth?: string): Promise<number | undefined> {
  const checkpoint = `$persistentsubscription-${stream}::${group}-checkpoint`;
  const response = await adminFetch(`${url}/streams/${encodeURIComponent(checkpoint)}/head`, {
    headers: { accept: 'application/vnd.svc.event+json', ...(auth ? { authorization: auth } : {}) },
  });
  if (response.status === 404) return undefined;
  const event = await response.json() as { eventType: string; data: string };
  if (event.eventType !== 'SubscriptionCheckpoint') throw new Error(`unexpected checkpoint event type ${event.eventType}`);
  return Number(event.data);
}

/** A second service over the node's streams, started: what the node builds at its next start. Ticked by hand. */
export function restartedService(t: Test, node: TestNode): SubscriptionsService {
  const restarted = new SubscriptionsService({
    system: new SystemStreams(node.streams), access: node.security.access, follow: (options) => node.engine.follow(options),
    logger: pino({ level: 'silent' }), tickIntervalMs: 0,
  });
  restarted.start();
  t.teardown(() => restarted.close());
  return restarted;
}

/** Makes `stream` readable by `$admins` only (its metadata's `$acl`); fails unless written. */
export async function readableByAdminsOnly(url: string, stream: string): Promise<void> {
  const response = await adminFetch(`${url}/streams/${encodeURIComponent(stream)}/metadata`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'svc-eventid': randomUUID() },
    body: JSON.stringify({ $acl: { $r: '$admins' } }),
  });
  if (response.status !== 201) throw new Error(`writing the metadata of ${stream}: ${response.status} ${await response.text()}`);
}
