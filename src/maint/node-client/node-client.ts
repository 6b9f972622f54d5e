/**
 * A running node's HTTP API as every client command uses it: one connection (URL, credentials,
 * private CA read once) and its requests. The admin clients (scavenge) and the data-plane clients
 * (streams, status) share it, so every command reports a wrong URL, a refused credential or an
 * unexpected reply the same way.
 */
import type { NodeConnection } from '../../common/node-connection.js';
import { findLeader, type LeaderChoice } from './leader-search.js';
import { nodeUrl, readCaFile, replyError, requestNode, unexpectedReply, type NodeReply, type RequestOptions } from './node-request.js';

export class NodeClient {
  private constructor(readonly connection: NodeConnection, private readonly ca: string | undefined) {}

  /**
   * Checks --url and reads --ca-file before any request, so either mistake is reported first.
   * Given the URLs of several nodes, connects to the one that leads and tells `chosen` which.
   */
  static async connect(connection: NodeConnection, chosen?: (choice: LeaderChoice) => void): Promise<NodeClient> {
    nodeUrl(connection.url, '/');
    const ca = await readCaFile(connection.caFile);
    const urls = connection.clusterUrls ?? [];
    if (urls.length < 2) return new NodeClient(connection, ca);
    const choice = await findLeader(connection, urls, ca);
    chosen?.(choice);
    const { clusterUrls: _all, ...one } = connection;
    return new NodeClient({ ...one, url: choice.url }, ca);
  }

  get url(): string {
    return this.connection.url;
  }

  request(options: Omit<RequestOptions, 'ca'>): Promise<NodeReply> {
    return requestNode(this.connection, { ...options, ...(this.ca !== undefined && { ca: this.ca }) });
  }

  /** The reply to a request the node carried out (2xx), or the error it stands for. */
  async send(options: Omit<RequestOptions, 'ca'>): Promise<NodeReply> {
    const reply = await this.request(options);
    if (reply.status < 200 || reply.status > 299) throw replyError(this.connection, reply);
    return reply;
  }

  /** The JSON body of a 2xx reply to a request with a JSON body (or none), or the error it stands for. */
  async json<T>(method: RequestOptions['method'], path: string, body?: unknown): Promise<T> {
    const reply = await this.send({ method, path, body });
    try {
      return JSON.parse(reply.body) as T;
    } catch {
      throw unexpectedReply(this.connection, reply);
    }
  }
}
