/**
 * A replica's requests to its leader: the handshake, the long-lived GET of the log, and a
 * cluster follower's position reports. Plain node:http(s): the stream holds its connection for
 * as long as it lasts and a handshake happens once per connection of the stream, so each has a
 * connection of its own; reports come every second or more often, so they keep one alive.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Errors } from '../../common/errors.js';
import type { NodeClientTls } from '../tls/node-certificates.js';
import type { HandshakeReply, HandshakeRequest } from './handshake.js';

export const HANDSHAKE_PATH = '/replication/handshake';
export const LOG_PATH = '/replication/log';
export const POSITION_PATH = '/replication/position';
export const REPLICATION_MEDIA_TYPE = 'application/vnd.svc.replication';

/** A handshake that takes longer than this is treated as an unreachable leader. */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** The stream is given up when nothing (not even a heartbeat) came for this long. */
export const STREAM_IDLE_TIMEOUT_MS = 10_000;
/** A position report unanswered for this long is given up; the next one is sent on a new connection. */
const REPORT_TIMEOUT_MS = 5000;

export interface LeaderCredentials {
  user: string;
  password: string;
}

export class LeaderClient {
  private readonly authorization: string;
  /** The kept-alive connection of position reports; made at the first report. */
  private reportAgent: http.Agent | undefined;

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

  /** Tells the leader how far this follower's log is durable (a cluster leader counts it towards its majority). */
  async reportPosition(nodeId: string, writerCheckpoint: number, signal: AbortSignal): Promise<void> {
    const body = Buffer.from(JSON.stringify({ nodeId, writerCheckpoint }));
    const response = await this.request('POST', POSITION_PATH, signal, body, REPORT_TIMEOUT_MS, this.keptAlive());
    const text = await readAll(response);
    if (response.statusCode !== 204) throw this.refused(response, text);
  }

  /** Closes the kept-alive connection of position reports (the follower stopped). */
  close(): void {
    this.reportAgent?.destroy();
    this.reportAgent = undefined;
  }

  private keptAlive(): http.Agent {
    // One socket: reports go one at a time. TLS options passed per request key the agent's
    // sockets, so a reloaded certificate makes a new connection.
    this.reportAgent ??= new (this.url.protocol === 'https:' ? https.Agent : http.Agent)({ keepAlive: true, maxSockets: 1 });
    return this.reportAgent;
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

  private request(
    method: string, path: string, signal: AbortSignal, body: Buffer | undefined, idleTimeoutMs: number, agent: http.Agent | false = false,
  ): Promise<IncomingMessage> {
    const target = new URL(path, this.url);
    const secure = target.protocol === 'https:';
    const transport = secure ? https : http;
    const tls = secure ? this.tls() : undefined;
    return new Promise((resolve, reject) => {
      const request = transport.request(target, {
        method, signal, agent, timeout: idleTimeoutMs, ...tls,
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
