/**
 * The description document of a stream (`application/vnd.svc.streamdesc+json`): what can be
 * asked of it and in which media types. A client that asks for a stream feed without naming a
 * media type gets it too, with 406, so it learns what to ask for.
 */
import { pathSegment } from '../path-segment.js';
import { MediaType } from './media-types.js';
import { escapeStream } from './urls.js';

/** `groups`: the stream's persistent subscription groups, each a `streamSubscription` link (none: no such links). */
export function descriptionDocument(streamName: string, groups: readonly string[] = []): string {
  const href = `/streams/${escapeStream(streamName)}`;
  const links: Record<string, unknown> = {
    self: { href, supportedContentTypes: [MediaType.streamDescJson] },
    stream: { href, supportedContentTypes: [MediaType.atomXml, MediaType.atomJson] },
  };
  // Relative, as the other links; absent without groups, as the wire note's v5 has it.
  if (groups.length > 0) {
    links.streamSubscription = groups.map((group) => ({
      href: `/subscriptions/${escapeStream(streamName)}/${pathSegment(group)}`,
      supportedContentTypes: [MediaType.competingAtomXml, MediaType.competingAtomJson],
    }));
  }
  return JSON.stringify({
    title: `Description document for '${streamName}'`,
    description: 'The description document will be presented when no accept header is present or it was requested',
    _links: links,
  });
}
