/**
 * Holding a forward read open (`Svc-LongPoll`) until an event is written, the time is up, or
 * the client goes away; then the route reads again and answers as usual.
 */
import type { FastifyReply } from 'fastify';
import type { StreamsService } from '../../services/streams.js';

/** Resolves true when an event was written, false when the time is up or the client went away. */
export async function waitForEvent(service: StreamsService, reply: FastifyReply, streamName: string, seconds: number): Promise<boolean> {
  const abort = new AbortController();
  // The response closes before it is sent only when the client disconnects.
  const onClose = () => abort.abort();
  reply.raw.once('close', onClose);
  try {
    return await service.longPolls.wait(streamName, seconds * 1000, abort.signal);
  } finally {
    reply.raw.off('close', onClose);
  }
}
