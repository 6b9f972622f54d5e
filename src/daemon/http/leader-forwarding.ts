/**
 * `Svc-RequireLeader: false` on a write to a read-only replica: the replica forwards the request
 * to its leader and answers as the leader answers (status, headers, body), instead of the 307
 * it gives otherwise. The body is streamed through as it arrives, the credentials go with it, and
 * the leader checks them; an unreachable leader is a 502 with a coded error.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { pipeline } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../common/errors.js';

/** Headers of one hop (RFC 9110 §7.6.1), not forwarded either way. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host']);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_HEADERS.has(name)));
}

export function forwardToLeader(request: FastifyRequest, reply: FastifyReply, leaderOrigin: string): void {
  const target = new URL(request.url, leaderOrigin);
  const transport = target.protocol === 'https:' ? https : http;
  void reply.hijack();
  const raw = reply.raw;
  const upstream = transport.request(target, { method: request.method, headers: { ...endToEnd(request.headers), host: target.host }, agent: false }, (response) => {
    raw.writeHead(response.statusCode ?? 502, endToEnd(response.headers));
    pipeline(response, raw, () => undefined);
  });
  upstream.on('error', (error) => {
    request.log.warn({ err: error, leader: leaderOrigin }, 'forwarding to the leader failed');
    if (raw.headersSent) {
      raw.destroy();
      return;
    }
    const failure = Errors.replicaUnavailable.create(leaderOrigin, error.message);
    raw.writeHead(failure.statusCode, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
    raw.end(JSON.stringify({ code: failure.code, message: failure.message }));
  });
  pipeline(request.raw, upstream, () => undefined);
}
