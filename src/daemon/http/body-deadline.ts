/**
 * Request bodies cannot hold a connection for ever. Node's request timeout
 * (--http-request-timeout-ms, set in app.ts) bounds the whole request; this adds a rate floor,
 * as Kestrel's minimum request body data rate: a body that, after a grace period, has arrived
 * slower on average than BODY_RATE_FLOOR_BYTES_PER_SECOND is answered 408 and its connection
 * closed, so a client dripping a byte every few seconds is gone in seconds, not minutes. And a
 * reply sent before its request's body was read closes the connection instead of letting Node
 * drain the rest of the body for as long as the client keeps sending it.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { Errors } from '../../common/errors.js';
import { answerAndClose } from './client-errors.js';

/** Bytes a second a body must average once the grace period is over (Kestrel's default). */
export const BODY_RATE_FLOOR_BYTES_PER_SECOND = 240;
/** How long a body may arrive slower than the floor at first (a slow start, a paused client). */
export const BODY_RATE_GRACE_MS = 5000;
/** How often bodies in progress are measured. */
const BODY_RATE_CHECK_INTERVAL_MS = 1000;

interface BodyInProgress {
  request: IncomingMessage;
  socket: Socket;
  /** The socket's bytesRead when the headers had arrived. */
  startBytes: number;
  startMs: number;
}

/** Whether the request announces a body: Node's parser reads none otherwise. */
function hasBody(request: FastifyRequest): boolean {
  const { headers } = request;
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

function tooSlow(body: BodyInProgress, nowMs: number): boolean {
  const elapsedMs = nowMs - body.startMs;
  return elapsedMs >= BODY_RATE_GRACE_MS
    && (body.socket.bytesRead - body.startBytes) * 1000 < BODY_RATE_FLOOR_BYTES_PER_SECOND * elapsedMs;
}

export function limitBodies(app: FastifyInstance): void {
  // Bodies still arriving, by request; a request leaves when its reply is sent, so the map holds
  // only what is in flight and keeps no finished request alive.
  const inProgress = new Map<IncomingMessage, BodyInProgress>();
  const check = () => {
    const nowMs = Date.now();
    for (const body of inProgress.values()) {
      if (body.request.complete || body.socket.destroyed) {
        inProgress.delete(body.request);
      } else if (tooSlow(body, nowMs)) {
        inProgress.delete(body.request);
        answerAndClose(body.socket, Errors.httpBodyTimeout.create(
          `it arrived slower than ${BODY_RATE_FLOOR_BYTES_PER_SECOND} bytes a second on average after ${BODY_RATE_GRACE_MS} ms`,
        ));
      }
    }
  };
  const timer = setInterval(check, BODY_RATE_CHECK_INTERVAL_MS);
  timer.unref();
  app.addHook('onClose', (_app, done) => {
    clearInterval(timer);
    done();
  });

  // Callback hooks: they run on every request, and an async one costs a promise each time.
  app.addHook('onRequest', (request, _reply, done) => {
    if (hasBody(request)) {
      const { socket } = request.raw;
      inProgress.set(request.raw, { request: request.raw, socket, startBytes: socket.bytesRead, startMs: Date.now() });
    }
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    // Only requests that announced a body were entered; the request timeout still bounds a body
    // that goes on arriving after its reply.
    if (inProgress.delete(request.raw) && !request.raw.complete) reply.header('connection', 'close');
    done(null, payload);
  });
}
