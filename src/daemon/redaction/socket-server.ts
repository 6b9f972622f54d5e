/**
 * The node's unix socket, `<db>/svcdb.sock`, mode 0600: the file system decides who may connect
 * (the node's user), so nothing here checks credentials. It serves the redaction protocol only,
 * as JSON over HTTP/1.1 (see `svcdb redact --help`):
 *
 *   POST   /lock            → {"lockId"}      takes the chunk-switch lock for this connection
 *   DELETE /lock/{lockId}   → {"released"}    releases it (closing the connection does too)
 *   POST   /positions       {"events":[{"stream","eventNumber"}]} → {"events":[{"stream","eventNumber","positions":[…]}]}
 *   POST   /check           {"lockId","chunks":[{"targetChunkFile","newChunkFile"}]} → {"checking":[newChunkFile…]}
 *                            starts checking up to four copies' contents before their hashes are written
 *   POST   /switch          {"lockId","targetChunkFile","newChunkFile"} → {"chunkFile"}
 *                            checks the copy (or waits for its check) and its hash, and switches it in
 *
 * Errors are {"code","message","details"} with the code's status, as over HTTP.
 */
import { existsSync, chmodSync, unlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Errors, isSvcError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { RedactionService } from './redaction-service.js';

/** A request body larger than this is refused (a list of about 200,000 events). */
export const SOCKET_REQUEST_BYTES_MAX = 16 * 1024 * 1024;
const OWNER_ONLY = 0o600;

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  let bytes = 0;
  for await (const part of request) {
    bytes += (part as Buffer).length;
    if (bytes > SOCKET_REQUEST_BYTES_MAX) throw Errors.redactRequestInvalid.create(`the body is larger than ${SOCKET_REQUEST_BYTES_MAX} bytes`);
    parts.push(part as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    throw Errors.redactRequestInvalid.create('the body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw Errors.redactRequestInvalid.create('the body must be a JSON object');
  return value as Record<string, unknown>;
}

function eventsOf(body: Record<string, unknown>): Array<{ stream: string; eventNumber: number }> {
  const events = body.events;
  const valid = Array.isArray(events) && events.every((event: { stream?: unknown; eventNumber?: unknown }) => typeof event === 'object' && event !== null
    && typeof event.stream === 'string' && Number.isSafeInteger(event.eventNumber) && (event.eventNumber as number) >= 0);
  if (!valid) throw Errors.redactRequestInvalid.create('events must be a list of {"stream": string, "eventNumber": integer ≥ 0}');
  return events as Array<{ stream: string; eventNumber: number }>;
}

const lockIdOf = (body: Record<string, unknown>) => (typeof body.lockId === 'string' ? body.lockId : '');

function chunksOf(body: Record<string, unknown>): Array<{ targetChunkFile: unknown; newChunkFile: unknown }> {
  const chunks = body.chunks;
  if (!Array.isArray(chunks) || !chunks.every((chunk) => typeof chunk === 'object' && chunk !== null)) {
    throw Errors.redactRequestInvalid.create('chunks must be a list of {"targetChunkFile": string, "newChunkFile": string}');
  }
  return chunks as Array<{ targetChunkFile: unknown; newChunkFile: unknown }>;
}

export class RedactionSocket {
  private readonly connections = new WeakMap<Socket, number>();
  private nextConnection = 1;

  private constructor(private readonly server: Server, readonly path: string, private readonly logger: Logger) {}

  /** Listens on `path` (a stale file there is removed first: the node holds the database lock). */
  static async start(path: string, service: RedactionService, logger: Logger): Promise<RedactionSocket> {
    if (existsSync(path)) unlinkSync(path);
    const server = createServer();
    const socket = new RedactionSocket(server, path, logger);
    server.on('connection', (connection: Socket) => socket.track(connection, service));
    server.on('request', (request, response) => void socket.handle(service, request, response));
    // The socket file is created by bind() inside listen(): a umask of 0177 makes it 0600 from the start.
    const umask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(path, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } finally {
      process.umask(umask);
    }
    chmodSync(path, OWNER_ONLY);
    logger.info({ socketPath: path }, 'redaction socket listening');
    return socket;
  }

  private track(connection: Socket, service: RedactionService): void {
    const id = this.nextConnection++;
    this.connections.set(connection, id);
    connection.on('close', () => void service.connectionClosed(id).catch((error: unknown) => this.logger.error({ err: error }, 'releasing a redaction lock failed')));
  }

  private async handle(service: RedactionService, request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const reply = await this.route(service, request);
      this.send(response, 200, reply);
    } catch (error) {
      if (!isSvcError(error)) this.logger.error({ err: error }, 'redaction request failed');
      const coded = isSvcError(error) ? error : Errors.internal.create('redaction socket');
      this.send(response, coded.statusCode, { code: coded.code, message: coded.message, details: coded.details });
    }
  }

  private async route(service: RedactionService, request: IncomingMessage): Promise<unknown> {
    const { method, url = '' } = request;
    if (method === 'POST' && url === '/lock') return { lockId: service.lock(this.connections.get(request.socket)!) };
    if (method === 'DELETE' && url.startsWith('/lock/')) return { released: await service.release(decodeURIComponent(url.slice(6))) };
    if (method === 'POST' && url === '/positions') return { events: service.positions(eventsOf(await readJson(request))) };
    if (method === 'POST' && url === '/check') {
      const body = await readJson(request);
      return { checking: service.check(lockIdOf(body), chunksOf(body)) };
    }
    if (method === 'POST' && url === '/switch') {
      const body = await readJson(request);
      return { chunkFile: await service.switchChunk(lockIdOf(body), body.targetChunkFile, body.newChunkFile) };
    }
    throw Errors.redactRequestInvalid.create(`${method} ${url} is not a redaction operation (POST /lock, DELETE /lock/{id}, POST /positions, POST /check, POST /switch)`);
  }

  private send(response: ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  }

  /** Stops listening, ends open connections (releasing any lock) and removes the socket file. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    if (existsSync(this.path)) unlinkSync(this.path);
  }
}
