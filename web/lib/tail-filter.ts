/**
 * What the live tail shows: by default the events applications wrote (no system events, no `$>`
 * links, which are most of `$all` when the system projections run), optionally only streams or
 * event types with a given prefix. The node filters by one of the two (its filtered read takes
 * one context); the console applies the other to what comes back.
 */
import { entryReference, type FeedEntry } from './feed.js';

export interface TailFilter {
  streamPrefix: string;
  typePrefix: string;
  /** Show system events and links too. */
  includeSystem: boolean;
}

export const DEFAULT_TAIL_FILTER: TailFilter = Object.freeze({ streamPrefix: '', typePrefix: '', includeSystem: false });

/** The newest page of `$all` for the tail, filtered by the node as far as it can. */
export function tailHeadPath(filter: TailFilter, count: number): string {
  const query = new URLSearchParams({ embed: 'rich' });
  if (filter.streamPrefix !== '') {
    query.set('context', 'streamid');
    query.set('type', 'prefix');
    query.set('data', filter.streamPrefix);
  } else if (filter.typePrefix !== '') {
    query.set('context', 'eventtype');
    query.set('type', 'prefix');
    query.set('data', filter.typePrefix);
  }
  if (!filter.includeSystem) query.set('exclude-system-events', 'true');
  return `/streams/%24all/filtered/head/backward/${count}?${query.toString()}`;
}

/** Whether the tail shows `entry`: the criterion the node did not apply, checked here. */
export function tailShows(filter: TailFilter, entry: FeedEntry): boolean {
  if (filter.typePrefix !== '' && !(entry.eventType ?? entry.summary).startsWith(filter.typePrefix)) return false;
  // Pages after the first come from the feed's links, which carry no embed level: the stream is read from the title.
  if (filter.streamPrefix !== '' && !(entryReference(entry)?.stream ?? '').startsWith(filter.streamPrefix)) return false;
  return filter.includeSystem || !(entry.eventType ?? entry.summary).startsWith('$');
}
