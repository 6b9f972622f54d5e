/**
 * Whether a node answers and serves, as `pg_isready` tells it of PostgreSQL: `GET /info`, which
 * needs no credentials, gives the node's state and version. A node that leads (or follows a
 * leader) serves; one that is starting or stopping answers but does not.
 */
import { Errors } from '../../common/errors.js';
import type { NodeClient } from '../node-client/node-client.js';

/** The states in which a node serves requests. */
const SERVING_STATES: ReadonlySet<string> = new Set(['leader', 'follower', 'readonlyreplica']);

export interface NodeStatus {
  url: string;
  state: string;
  version: string;
  /** The node leads or follows, and so serves reads (and, leading, writes). */
  serving: boolean;
}

export async function nodeStatus(client: NodeClient): Promise<NodeStatus> {
  const info = await client.json<{ state?: unknown; svcVersion?: unknown }>('GET', '/info');
  if (typeof info.state !== 'string' || typeof info.svcVersion !== 'string') {
    throw Errors.clientUnexpectedReply.create(`the node at ${client.url}`, 'answered GET /info without its state and version');
  }
  return { url: client.url, state: info.state, version: info.svcVersion, serving: SERVING_STATES.has(info.state) };
}

/** A node that answers but does not serve is an error, so that the exit code says so. */
export function checkServing(status: NodeStatus): NodeStatus {
  if (!status.serving) throw Errors.clientNodeNotReady.create(status.url, status.state);
  return status;
}
