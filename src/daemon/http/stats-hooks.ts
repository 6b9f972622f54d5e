/**
 * Hooks on every route: the HTTP request queue for /stats (in flight, answered, time taken), the
 * count of errors met, and with --log-http-requests one log line per request. The line holds the
 * method, path, status and duration, never headers, so credentials cannot reach the log.
 */
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { QueueMeter } from '../../storage/log/meters.js';

export interface RequestObserverOptions {
  requests: QueueMeter;
  /** Called once for every error a route or hook throws. */
  onRequestError: () => void;
  logRequests: boolean;
}

const observe: FastifyPluginAsync<RequestObserverOptions> = async (app: FastifyInstance, { requests, onRequestError, logRequests }) => {
  app.addHook('onRequest', (request, reply, done) => {
    requests.enqueued();
    const started = requests.begin('HttpRequest');
    // 'close' fires once per response, whether it was sent in full or the client went away.
    reply.raw.once('close', () => {
      requests.taken(1);
      requests.end(started, 1);
      if (logRequests) {
        request.log.info({
          method: request.method, url: request.url, statusCode: reply.raw.statusCode,
          ms: Math.round(reply.elapsedTime * 100) / 100, completed: reply.raw.writableFinished,
        }, 'request');
      }
    });
    done();
  });
  app.addHook('onError', (_request, _reply, _error, done) => {
    onRequestError();
    done();
  });
};

// The hooks must see the routes of every plugin, not only this one's (what fastify-plugin does).
(observe as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;

export const observeRequests = observe;
