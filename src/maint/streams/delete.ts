/**
 * `svcdb stream delete`: a soft delete (the stream reads as missing; an append brings it back,
 * numbering after its old last event) or, asked for by name, a hard delete (a tombstone: the
 * stream name can never be used again).
 */
import type { NodeClient } from '../node-client/node-client.js';
import { replyError } from '../node-client/node-request.js';
import { Header, streamPath } from './wire.js';

export interface DeleteResult {
  stream: string;
  hard: boolean;
}

export async function deleteStream(client: NodeClient, stream: string, hard: boolean, expectedVersion?: number): Promise<DeleteResult> {
  const headers: Record<string, string> = { [Header.hardDelete]: String(hard) };
  if (expectedVersion !== undefined) headers[Header.expectedVersion] = String(expectedVersion);
  const reply = await client.request({ method: 'DELETE', path: streamPath(stream), headers });
  if (reply.status !== 204) throw replyError(client.connection, reply);
  return { stream, hard };
}
