/**
 * The redactor's side of the node's unix socket (protocol in daemon/redaction/socket-server.ts).
 * Every request goes over one kept-alive connection: the node ties the chunk-switch lock to it,
 * so the lock ends when this process does, however it ends.
 */
import { Agent, request } from 'node:http';
import { Errors, reviveError } from '../../common/errors.js';
import type { EventPosition } from '../../storage/read/event-positions.js';
import type { EventReference } from './events-list.js';

/** What the node answers for each event: the storage's own description of where it lies. */
export type EventPositionReply = EventPosition;

export class RedactionClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });

  constructor(readonly socketPath: string) {}

  private call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const outgoing = request({
        socketPath: this.socketPath, agent: this.agent, method, path,
        headers: payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {},
      }, (response) => {
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => parts.push(part));
        response.on('error', reject);
        response.on('end', () => {
          try {
            resolve(this.reply(response.statusCode ?? 0, Buffer.concat(parts).toString('utf8')));
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      });
      outgoing.on('error', (error: NodeJS.ErrnoException) => reject(Errors.redactNoSocket.create(this.socketPath, error.code ?? error.message)));
      outgoing.end(payload);
    });
  }

  private reply(status: number, text: string): Record<string, unknown> {
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw Errors.clientUnexpectedReply.create(this.socketPath, `answered ${status} with a body that is not JSON`);
    }
    if (status === 200) return value;
    const revived = typeof value.code === 'string' ? reviveError(value.code, typeof value.message === 'string' ? value.message : '', (value.details ?? {}) as Record<string, unknown>) : undefined;
    throw revived ?? Errors.clientUnexpectedReply.create(this.socketPath, `answered ${status} ${text.slice(0, 200)}`);
  }

  async lock(): Promise<string> {
    return String((await this.call('POST', '/lock')).lockId);
  }

  async release(lockId: string): Promise<void> {
    await this.call('DELETE', `/lock/${encodeURIComponent(lockId)}`);
  }

  async positions(events: readonly EventReference[]): Promise<Array<{ stream: string; eventNumber: number; positions: EventPositionReply[] }>> {
    const reply = await this.call('POST', '/positions', { events: events.map((event) => ({ stream: event.streamName, eventNumber: event.eventNumber })) });
    return reply.events as Array<{ stream: string; eventNumber: number; positions: EventPositionReply[] }>;
  }

  /** Has the node start checking copies whose contents are final (their hashes may follow). */
  async checkChunks(lockId: string, chunks: ReadonlyArray<{ targetChunkFile: string; newChunkFile: string }>): Promise<void> {
    await this.call('POST', '/check', { lockId, chunks });
  }

  async switchChunk(lockId: string, targetChunkFile: string, newChunkFile: string): Promise<string> {
    return String((await this.call('POST', '/switch', { lockId, targetChunkFile, newChunkFile })).chunkFile);
  }

  close(): void {
    this.agent.destroy();
  }
}
