/**
 * The scavenge admin API of a running node, as `svcdb scavenge` uses it: start, stop, the running
 * scavenge and the state of one by id (running, or how it ended).
 */
import { Errors } from '../../common/errors.js';
import { NodeClient } from '../node-client/node-client.js';
import type { NodeConnection } from '../../common/node-connection.js';
import { jsonReply, replyError } from '../node-client/node-request.js';

export interface StartParameters {
  threads?: number;
  threshold?: number;
  throttlePercent?: number;
  syncOnly?: boolean;
}

/** GET /admin/scavenge/{id} of a run that is going on. */
export interface RunningScavenge {
  scavengeId: string;
  phase: string;
  /** What chunksDone counts in this phase: chunks, streams, merges or indexFiles. */
  unit?: string;
  chunksDone: number;
  chunksTotal: number;
  spaceSaved: number;
  stopRequested: boolean;
}

/** GET /admin/scavenge/{id} of a run that ended (the data of its $scavengeCompleted). */
export interface CompletedScavenge {
  scavengeId: string;
  phase: 'Completed';
  result: 'Success' | 'Failed' | 'Stopped';
  error: string | null;
  timeTaken: string;
  spaceSaved: number;
  maxChunkScavenged: number;
}

export type ScavengeState = RunningScavenge | CompletedScavenge;

export function isCompleted(state: ScavengeState): state is CompletedScavenge {
  return state.phase === 'Completed';
}

export class ScavengeClient {
  private constructor(private readonly client: NodeClient) {}

  static async connect(connection: NodeConnection): Promise<ScavengeClient> {
    return new ScavengeClient(await NodeClient.connect(connection));
  }

  get url(): string {
    return this.client.url;
  }

  private get connection(): NodeConnection {
    return this.client.connection;
  }

  private request(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) {
    return this.client.request({ method, path, body });
  }

  async start(parameters: StartParameters): Promise<string> {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(parameters)) if (value !== undefined) query.set(name, String(value));
    const reply = await this.request('POST', `/admin/scavenge?${query.toString()}`, {});
    const { scavengeId } = jsonReply<{ scavengeId?: unknown }>(this.connection, reply);
    if (typeof scavengeId !== 'string' || scavengeId === '') throw Errors.clientUnexpectedReply.create(`the node at ${this.url}`, 'started a scavenge without naming it');
    return scavengeId;
  }

  /** The running scavenge, or undefined when none runs. */
  async current(): Promise<RunningScavenge | undefined> {
    const current = jsonReply<RunningScavenge>(this.connection, await this.request('GET', '/admin/scavenge/current'));
    return current.scavengeId === '' ? undefined : current;
  }

  async state(scavengeId: string): Promise<ScavengeState> {
    return jsonReply<ScavengeState>(this.connection, await this.request('GET', `/admin/scavenge/${encodeURIComponent(scavengeId)}`));
  }

  /** Stops the running scavenge (`current`) or the one named; resolves with its id once it has stopped. */
  async stop(scavengeId = 'current'): Promise<string> {
    const reply = await this.request('DELETE', `/admin/scavenge/${encodeURIComponent(scavengeId)}`);
    if (reply.status !== 200) throw replyError(this.connection, reply);
    return jsonReply<string>(this.connection, reply);
  }
}
