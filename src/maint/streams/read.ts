/**
 * `svcdb stream read` and `tail`: the events of a stream or of $all, page after page, following
 * the links the node puts in each page (so a filter or a position format stays the node's).
 */
import type { NodeClient } from '../node-client/node-client.js';
import { readFeedPage, type ReadEvent } from './feed-page.js';
import { ALL_STREAM, linkPath, streamPath } from './wire.js';

/** The first position of $all. */
export const ALL_START = '0'.repeat(32);
/** Events asked for per request. */
export const PAGE_COUNT = 100;

export interface AllFilter {
  /** `context=eventtype|streamid&type=prefix|regex&data=…` and/or `exclude-system-events=true`. */
  query: string;
}

export interface ReadOptions {
  /** An event number or a $all position; the start (forward) or the head (backward) by default. */
  from?: string;
  /** At most this many events; all of them by default. */
  count?: number;
  backwards: boolean;
  /** $all only. */
  filter?: AllFilter;
}

function feedPath(stream: string, from: string, direction: 'forward' | 'backward', count: number, filter?: AllFilter): string {
  const base = filter === undefined ? streamPath(stream) : `${streamPath(ALL_STREAM)}/filtered`;
  return `${base}/${from}/${direction}/${count}${filter === undefined ? '' : `?${filter.query}`}`;
}

export async function* readEvents(client: NodeClient, stream: string, options: ReadOptions): AsyncGenerator<ReadEvent> {
  const direction = options.backwards ? 'backward' : 'forward';
  const from = options.from ?? (options.backwards ? 'head' : stream === ALL_STREAM ? ALL_START : '0');
  let remaining = options.count ?? Number.POSITIVE_INFINITY;
  let path: string | undefined = feedPath(stream, from, direction, Math.min(remaining, PAGE_COUNT), options.filter);
  while (path !== undefined && remaining > 0) {
    const page = await readFeedPage(client, { path });
    const events = options.backwards ? page.events.reverse() : page.events;
    for (const event of events.slice(0, remaining)) yield event;
    remaining -= events.length;
    // Forward, `previous` leads to newer events; backward, `next` to older ones.
    const link = page.links.get(options.backwards ? 'next' : 'previous');
    const atEnd = events.length === 0 || (!options.backwards && page.headOfStream);
    path = atEnd || link === undefined ? undefined : linkPath(link);
  }
}

export interface FollowOptions {
  /** An event number or $all position; the end (only events written from now on) by default. */
  from?: string;
  filter?: AllFilter;
  longPollSeconds: number;
}

/** Where events written from now on will be: the `previous` link of the head page, or the start. */
async function endPosition(client: NodeClient, stream: string): Promise<string> {
  const head = await readFeedPage(client, { path: feedPath(stream, 'head', 'backward', 1), missingIsEmpty: true });
  const previous = head.links.get('previous');
  const position = previous === undefined ? undefined : /\/([^/]+)\/forward\/\d+$/.exec(new URL(previous).pathname)?.[1];
  return position ?? (stream === ALL_STREAM ? ALL_START : '0');
}

/** Every event from `from` on, and then each new one as it is written; ends only when the caller stops. */
export async function* followEvents(client: NodeClient, stream: string, options: FollowOptions): AsyncGenerator<ReadEvent> {
  const from = options.from ?? await endPosition(client, stream);
  let path = feedPath(stream, from, 'forward', PAGE_COUNT, options.filter);
  for (;;) {
    // A stream that does not exist yet is waited for like an empty page.
    const page = await readFeedPage(client, { path, longPollSeconds: options.longPollSeconds, missingIsEmpty: true });
    for (const event of page.events) yield event;
    const previous = page.links.get('previous');
    if (previous !== undefined) path = linkPath(previous);
  }
}
