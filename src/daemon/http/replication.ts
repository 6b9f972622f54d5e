/**
 * The replication endpoint (docs/replication.md), for other nodes only: `$admins` and `$ops`
 * (http/authentication.ts). `POST /replication/handshake` finds where the caller's log and this
 * node's part; `GET /replication/log?from=POSITION` is one long HTTP/1.1 response, chunked, of
 * binary frames, that lasts as long as the replica follows. The response is written straight to
 * the socket, waiting for 'drain' whenever it is full, so a slow replica holds the leader to one
 * frame in flight. Streams still open when the node stops are ended first: a stop waits for
 * every open connection. `POST /replication/position` is a follower's report of how far its log
 * is durable, which a cluster leader counts towards the majority a write waits for.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsync } from 'fastify';
import type { HandshakeRequest } from '../replication/handshake.js';
import { REPLICATION_MEDIA_TYPE } from '../replication/leader-client.js';
import type { ReplicationSource } from '../replication/replication-source.js';
import { HANDSHAKE_EPOCHS_MAX } from '../../storage/read/log-bytes.js';

/** A follower's durable end of log, as it reported it. */
export type PositionSink = (nodeId: string, writerCheckpoint: number) => void;

export interface ReplicationRoutesOptions {
  source: ReplicationSource;
  /** Where position reports go; without it they are answered and ignored (a leader of plain replicas). */
  onPosition?: PositionSink;
}

const position = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;

const handshakeSchema = {
  body: {
    type: 'object',
    required: ['epochs', 'writerCheckpoint'],
    additionalProperties: false,
    properties: {
      writerCheckpoint: position,
      epochs: {
        type: 'array',
        maxItems: HANDSHAKE_EPOCHS_MAX,
        items: {
          type: 'object',
          required: ['epochPosition', 'epochNumber', 'epochId'],
          properties: { epochPosition: position, epochNumber: position, epochId: { type: 'string', maxLength: 64 } },
        },
      },
    },
  },
} as const;

/** A member's id, as cluster members are named (an etcd key segment). */
const NODE_ID_PATTERN = '^[A-Za-z0-9._-]+$';

const positionSchema = {
  body: {
    type: 'object',
    required: ['nodeId', 'writerCheckpoint'],
    additionalProperties: false,
    properties: { nodeId: { type: 'string', minLength: 1, maxLength: 128, pattern: NODE_ID_PATTERN }, writerCheckpoint: position },
  },
} as const;

const logSchema = {
  querystring: { type: 'object', required: ['from'], properties: { from: position } },
} as const;

/** A sink over the raw response: resolves at once while the socket takes more, else at 'drain' (or close). */
function sinkOf(raw: ServerResponse) {
  let closed = false;
  const listeners: Array<() => void> = [];
  raw.once('close', () => {
    closed = true;
    for (const listener of listeners) listener();
  });
  return {
    get closed() {
      return closed;
    },
    onClose(listener: () => void) {
      listeners.push(listener);
    },
    write(frame: Buffer): Promise<void> {
      if (closed || raw.write(frame)) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          raw.off('drain', done);
          resolve();
        };
        raw.once('drain', done);
        listeners.push(done);
      });
    },
  };
}

export const replicationRoutes: FastifyPluginAsync<ReplicationRoutesOptions> = async (app, { source, onPosition }) => {
  const open = new Set<ServerResponse>();
  app.addHook('preClose', (done) => {
    for (const raw of open) raw.end();
    done();
  });

  app.post('/replication/handshake', { schema: handshakeSchema }, async (request) => source.handshake(request.body as HandshakeRequest));

  app.post('/replication/position', { schema: positionSchema }, async (request, reply) => {
    const { nodeId, writerCheckpoint } = request.body as { nodeId: string; writerCheckpoint: number };
    onPosition?.(nodeId, writerCheckpoint);
    return reply.code(204).send();
  });

  app.get('/replication/log', { schema: logSchema }, async (request, reply) => {
    const { from } = request.query as { from: number };
    source.checkFrom(from);
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { 'content-type': REPLICATION_MEDIA_TYPE, 'cache-control': 'no-store' });
    open.add(raw);
    const remote = `${request.ip}:${request.raw.socket.remotePort ?? 0}`;
    try {
      await source.stream(from, sinkOf(raw), request.ip, request.raw.socket.remotePort ?? 0);
    } catch (error) {
      // The status went out with the first frame: the stream can only be cut, and the replica reconnects.
      request.log.warn({ err: error, replica: remote }, 'replication stream broke off');
      raw.destroy();
    } finally {
      open.delete(raw);
      if (!raw.writableEnded) raw.end();
    }
  });
};
