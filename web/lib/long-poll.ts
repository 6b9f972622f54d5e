/**
 * Waiting for a stream to grow: the page after the newest one, read with `Svc-LongPoll`, so the
 * node answers as soon as an event is written there and an idle page costs one request per
 * long-poll period.
 */
import type { Api } from './api.js';
import { linkOf, type Feed } from './feed.js';
import { untilAborted } from './waiting.js';

export const LONG_POLL_SECONDS = 10;
export const FEED = 'application/vnd.svc.atom+json';

/** One long poll of `path`: the page the node answered with (empty when nothing came in time). */
export function longPoll(api: Api, path: string, signal: AbortSignal): Promise<Feed> {
  return api.json<Feed>(path, { accept: FEED, signal, headers: { 'svc-longpoll': String(LONG_POLL_SECONDS) } });
}

/** Resolves once an event newer than `feed`'s newest has been written. */
export async function newerEvent(api: Api, feed: Feed, signal: AbortSignal): Promise<void> {
  const next = linkOf(feed.links, 'previous')?.uri;
  // A feed with no newer page never grows here.
  if (next === undefined) return untilAborted(signal);
  for (;;) {
    const page = await longPoll(api, next, signal);
    if (page.entries.length > 0) return;
  }
}
