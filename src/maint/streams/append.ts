/**
 * Appends events to a stream in batches: each batch is one request and is written atomically;
 * a long input (standard input) becomes several batches, the second checked against where the
 * first ended when an expected version was given, so no other writer slips in between.
 */
import { Errors } from '../../common/errors.js';
import type { NodeClient } from '../node-client/node-client.js';
import { replyError, unexpectedReply } from '../node-client/node-request.js';
import type { BatchEntry } from './event-input.js';
import { Header, MediaType, streamPath } from './wire.js';

/** Events per request: well under the node's limits of 4 MiB of data and one chunk per append. */
export const BATCH_EVENTS_MAX = 500;
export const BATCH_BYTES_MAX = 1024 * 1024;

export interface AppendResult {
  stream: string;
  /** Events sent (a repeat of events already written counts too, as the node answers it). */
  count: number;
  firstEventNumber?: number;
  lastEventNumber?: number;
}

const ANY_VERSION = -2;

export class StreamAppender {
  private readonly pending: BatchEntry[] = [];
  private pendingBytes = 0;
  private readonly result: AppendResult;

  constructor(private readonly client: NodeClient, readonly stream: string, private expectedVersion: number = ANY_VERSION) {
    this.result = { stream, count: 0 };
  }

  async add(entry: BatchEntry): Promise<void> {
    if (this.pending.length >= BATCH_EVENTS_MAX || (this.pending.length > 0 && this.pendingBytes + entry.length > BATCH_BYTES_MAX)) await this.flush();
    this.pending.push(entry);
    this.pendingBytes += entry.length + 1;
  }

  /** Sends what is pending and returns what was appended so far. */
  async finish(): Promise<AppendResult> {
    await this.flush();
    return { ...this.result };
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const count = this.pending.length;
    const reply = await this.client.request({
      method: 'POST',
      path: streamPath(this.stream),
      rawBody: { text: `[${this.pending.join(',')}]`, contentType: MediaType.eventsJson },
      headers: { [Header.expectedVersion]: String(this.expectedVersion) },
    });
    if (reply.status !== 201) throw replyError(this.client.connection, reply);
    const first = Number(/\/(\d+)$/.exec(String(reply.headers.location ?? ''))?.[1] ?? Number.NaN);
    if (!Number.isSafeInteger(first)) throw unexpectedReply(this.client.connection, reply);
    const last = first + count - 1;
    this.result.firstEventNumber ??= first;
    this.result.lastEventNumber = last;
    this.result.count += count;
    if (this.expectedVersion !== ANY_VERSION) this.expectedVersion = last;
    this.pending.length = 0;
    this.pendingBytes = 0;
  }
}

/** An append of no events is a mistake of the input, never a silent success. */
export function checkSomething(result: AppendResult, source: string): AppendResult {
  if (result.count === 0) throw Errors.clientEventInvalid.create(source, 'held no event');
  return result;
}
