/**
 * The description document of a stream (`application/vnd.svc.streamdesc+json`): what can be
 * asked of it and in which media types. A client that asks for a stream feed without naming a
 * media type gets it too, with 406, so it learns what to ask for.
 */
import { MediaType } from './media-types.js';
import { escapeStream } from './urls.js';

export function descriptionDocument(streamName: string): string {
  const href = `/streams/${escapeStream(streamName)}`;
  return JSON.stringify({
    title: `Description document for '${streamName}'`,
    description: 'The description document will be presented when no accept header is present or it was requested',
    _links: {
      self: { href, supportedContentTypes: [MediaType.streamDescJson] },
      stream: { href, supportedContentTypes: [MediaType.atomXml, MediaType.atomJson] },
    },
  });
}
