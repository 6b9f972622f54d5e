/**
 * A replica's requests to its leader: the handshake, and the long-lived GET of the log. Plain
 * node:http(s), one connection per request: the stream holds its connection for as long as it
 * lasts, and a handshake happens once per connection of the stream.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Errors } from '../../common/errors.js';
import type { NodeClientTls } from '../tls/node-certificates.js';
import type { HandshakeReply, HandshakeRequest } from './handshake.js';

export const HANDSHAKE_PATH = '/replication/handshake';
export const LOG_PATH = '/replication/log';
export const REPLICATION_MEDIA_TYPE = 'application/vnd.svc.replication';

/** A handshake that takes longer than this is treated as an unreachable leader. */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** The stream is given up when nothing (not even a heartbeat) came for this long. */
export const STREAM_IDLE_TIMEOUT_MS = 10_000;

export interface LeaderCredentials {
  user: string;
  password: string;
}

export class LeaderClient {
  private readonly authorization: string;

  /**
   * `tls` gives, at each connection, the node's certificate, key and trusted roots as they are
   * then (a reload may change them): over https the replica presents its node certificate, which
   * lets it in as a node; the credentials are what a leader that does not accept it checks.
   */
  constructor(readonly url: URL, credentials: LeaderCredentials, private readonly tls: () => NodeClientTls | undefined = () => undefined) {
    this.authorization = `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`;
  }

  async handshake(request: HandshakeRequest, signal: AbortSignal): Promise<HandshakeReply> {
    const body = Buffer.from(JSON.stringify(request));
    const response = await this.request('POST', HANDSHAKE_PATH, signal, body, HANDSHAKE_TIMEOUT_MS);
    const text = await readAll(response);
    if (response.statusCode !== 200) throw this.refused(response, text);
    const reply = JSON.parse(text.toString('utf8')) as HandshakeReply;
    if (!Number.isSafeInteger(reply.commonPosition) || !Number.isSafeInteger(reply.chunkSizeBytes)) {
      throw Errors.replicaUnavailable.create(this.url.origin, 'the handshake reply is not one this node understands');
    }
    return reply;
  }

  /** The log from `from` on: the response, whose body is the frames. */
  async stream(from: number, signal: AbortSignal): Promise<IncomingMessage> {
    const response = await this.request('GET', `${LOG_PATH}?from=${from}`, signal, undefined, STREAM_IDLE_TIMEOUT_MS);
    if (response.statusCode !== 200) throw this.refused(response, await readAll(response));
    return response;
  }

  private refused(response: IncomingMessage, body: Buffer): Error {
    let code = '';
    try {
      code = (JSON.parse(body.toString('utf8')) as { code?: string }).code ?? '';
    } catch {
      // Not one of ours: the status says enough.
    }
    return Errors.replicaUnavailable.create(this.url.origin, `${response.statusCode} ${code}`.trim());
  }

  private request(method: string, path: string, signal: AbortSignal, body: Buffer | undefined, idleTimeoutMs: number): Promise<IncomingMessage> {
    const target = new URL(path, this.url);
    const secure = target.protocol === 'https:';
    const transport = secure ? https : http;
    const tls = secure ? this.tls() : undefined;
    return new Promise((resolve, reject) => {
      const request = transport.request(target, {
        method, signal, agent: false, timeout: idleTimeoutMs, ...tls,
        headers: {
          authorization: this.authorization, accept: method === 'GET' ? REPLICATION_MEDIA_TYPE : 'application/json',
          ...(body ? { 'content-type': 'application/json', 'content-length': body.length } : {}),
        },
      }, resolve);
      // A socket silent for the idle timeout (no heartbeat) is dropped; the follower reconnects.
      request.on('timeout', () => request.destroy(Errors.replicaUnavailable.create(this.url.origin, `nothing came for ${idleTimeoutMs} ms`)));
      request.on('error', reject);
      request.end(body);
    });
  }
}

async function readAll(response: IncomingMessage): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for await (const piece of response) pieces.push(piece as Buffer);
  return Buffer.concat(pieces);
}
