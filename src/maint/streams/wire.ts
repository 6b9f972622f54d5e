/**
 * The names of the stream API that the stream commands send: paths, headers and media types, as
 * the node's HTTP API defines them (its wire format is fixed; these mirror it on the client side).
 */

export const Header = {
  expectedVersion: 'Svc-ExpectedVersion',
  hardDelete: 'Svc-HardDelete',
  longPoll: 'Svc-LongPoll',
} as const;

export const MediaType = {
  /** A batch of events, each `{eventId, eventType, data, metadata}`. */
  eventsJson: 'application/vnd.svc.events+json',
  /** A feed page. */
  atomJson: 'application/vnd.svc.atom+json',
} as const;

export const ALL_STREAM = '$all';

/** The path of a stream (or `$all`) with its name escaped. */
export function streamPath(stream: string): string {
  return `/streams/${encodeURIComponent(stream)}`;
}

/** A node's own link as a path, so it is requested from --url whatever host the node named. */
export function linkPath(uri: string): string {
  const url = new URL(uri);
  return `${url.pathname}${url.search}`;
}
