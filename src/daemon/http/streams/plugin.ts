/**
 * The streams API: every `/streams` route, over the streams service. Request bodies are taken
 * as raw bytes whatever their type, because a single raw event's body is stored as sent; each
 * route decides from the Content-Type what the bytes mean.
 */
import type { FastifyInstance } from 'fastify';
import type { StreamsService } from '../../services/streams.js';
import { readRoutes } from './read-routes.js';
import { resource } from '../routing.js';
import { appendRoutes, deleteRoute, incomingRoute, metadataWriteRoute } from './write-routes.js';

export interface StreamsPluginOptions {
  service: StreamsService;
}

export async function streamsRoutes(app: FastifyInstance, { service }: StreamsPluginOptions): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  const reads = readRoutes(service);
  resource(app, '/streams/:stream', { GET: reads.stream, POST: appendRoutes(service), DELETE: deleteRoute(service) });
  resource(app, '/streams/:stream/incoming/:guid', { POST: incomingRoute(service) });
  resource(app, '/streams/:stream/metadata', { GET: reads.metadata, POST: metadataWriteRoute(service) });
  for (const [url, route] of Object.entries(reads.more)) resource(app, url, { GET: route });
  // Before the server waits for its requests to end: a long poll is answered now, as at its
  // timeout, rather than holding the stop for up to its 600 seconds.
  app.addHook('preClose', async () => service.longPolls.close());
}
