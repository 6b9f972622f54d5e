/**
 * A running node's HTTP API as every client command uses it: one connection (URL, credentials,
 * private CA read once) and its requests. The admin clients (scavenge) and the data-plane clients
 * (streams, status) share it, so every command reports a wrong URL, a refused credential or an
 * unexpected reply the same way.
 */
import { jsonReply, nodeUrl, readCaFile, requestNode, type NodeConnection, type NodeReply, type RequestOptions } from './node-request.js';

export class NodeClient {
  private constructor(readonly connection: NodeConnection, private readonly ca: string | undefined) {}

  /** Checks --url and reads --ca-file before any request, so either mistake is reported first. */
  static async connect(connection: NodeConnection): Promise<NodeClient> {
    nodeUrl(connection.url, '/');
    return new NodeClient(connection, await readCaFile(connection.caFile));
  }

  get url(): string {
    return this.connection.url;
  }

  request(options: Omit<RequestOptions, 'ca'>): Promise<NodeReply> {
    return requestNode(this.connection, { ...options, ...(this.ca !== undefined && { ca: this.ca }) });
  }

  /** The JSON body of a 200 reply to a request with a JSON body (or none), or the error it stands for. */
  async json<T>(method: RequestOptions['method'], path: string, body?: unknown): Promise<T> {
    return jsonReply<T>(this.connection, await this.request({ method, path, body }));
  }
}
