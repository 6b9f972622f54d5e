/**
 * The URLs of subscription groups in replies: absolute, from the request's base URL, with the
 * stream escaped as stream URLs escape it.
 */
import { pathSegment } from '../path-segment.js';
import { escapeStream, streamUrl } from '../streams/urls.js';

export function groupUrl(base: string, stream: string, group: string): string {
  return `${base}/subscriptions/${escapeStream(stream)}/${pathSegment(group)}`;
}

export function parkedStreamUrl(base: string, parkedStream: string): string {
  return streamUrl(base, parkedStream);
}
