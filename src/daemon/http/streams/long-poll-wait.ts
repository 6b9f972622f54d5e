/**
 * Holding a forward read open (`Svc-LongPoll`) until an event is written, the time is up, or
 * the client goes away; then the route reads again and answers as usual.
 */
import type { FastifyReply } from 'fastify';
import type { StreamsService } from '../../services/streams.js';

export async function waitForEvent(service: StreamsService, reply: FastifyReply, streamName: string, seconds: number): Promise<void> {
  const abort = new AbortController();
  // The response closes before it is sent only when the client disconnects.
  const onClose = () => abort.abort();
  reply.raw.once('close', onClose);
  try {
    await service.longPolls.wait(streamName, seconds * 1000, abort.signal);
  } finally {
    reply.raw.off('close', onClose);
  }
}
