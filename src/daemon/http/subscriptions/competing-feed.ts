/**
 * The feed of the messages checked out to a consumer (`vnd.svc.competingatom+json` and `+xml`):
 * the stream feed's entries at the requested embed level, each with its `retryCount` and its
 * `ack` and `nack` links, and `ackAll`/`nackAll` links for the whole batch when it has entries.
 * Entries are newest first, as in every other feed; the ids of `ackAll`/`nackAll` are in delivery
 * order.
 */
import type { ResolvedEvent } from '../../services/streams.js';
import { AUTHOR, feedEntry, type EntryUrls, type FeedEntry } from '../streams/entry.js';
import { link, NO_DATE, type Feed } from '../streams/feed.js';
import type { EmbedLevel } from '../streams/read-params.js';
import { groupUrl } from './urls.js';

export interface DeliveredMessage {
  id: string;
  retryCount: number;
  resolved: ResolvedEvent;
}

export interface CompetingFeedRequest {
  stream: string;
  group: string;
  count: number;
  embed: EmbedLevel;
}

function messageEntry(message: DeliveredMessage, urls: EntryUrls, embed: EmbedLevel, self: string): FeedEntry {
  const { links, ...entry } = feedEntry(message.resolved, urls, embed);
  return {
    ...entry,
    retryCount: message.retryCount,
    links: [...links, link(`${self}/ack/${message.id}`, 'ack'), link(`${self}/nack/${message.id}`, 'nack')],
  };
}

export function competingFeed(urls: EntryUrls, request: CompetingFeedRequest, messages: readonly DeliveredMessage[]): Feed {
  const self = groupUrl(urls.base, request.stream, request.group);
  const links = [];
  if (messages.length > 0) {
    const ids = messages.map((message) => message.id).join(',');
    links.push(link(`${self}/ack?ids=${ids}`, 'ackAll'), link(`${self}/nack?ids=${ids}`, 'nackAll'));
  }
  links.push(link(`${self}/${request.count}`, 'previous'), link(self, 'self'));
  const entries = messages.map((message) => messageEntry(message, urls, request.embed, self)).reverse();
  return {
    title: `Messages for '${request.stream}/${request.group}'`,
    id: self,
    updated: entries.length > 0 ? entries[0].updated : NO_DATE,
    author: AUTHOR,
    headOfStream: false,
    links,
    entries,
  };
}
