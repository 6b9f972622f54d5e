/**
 * Whether a node answers and serves, as `pg_isready` tells it of PostgreSQL: `GET /info`, which
 * needs no credentials, gives the node's state and version. A node that leads (or follows a
 * leader) serves; one that is starting or stopping answers but does not. A read-only replica
 * also says how it follows its leader and how far behind it is.
 */
import { Errors } from '../../common/errors.js';
import { formatBytes, formatDuration } from '../../common/human-units.js';
import type { NodeClient } from '../node-client/node-client.js';

/** The states in which a node serves requests. */
// A replica that catches up serves reads of what it has, as one that has caught up does.
const SERVING_STATES: ReadonlySet<string> = new Set(['leader', 'follower', 'readonlyreplica', 'catchingup']);

export interface NodeStatus {
  url: string;
  state: string;
  version: string;
  /** The node leads or follows, and so serves reads (and, leading, writes). */
  serving: boolean;
  /** On a read-only replica only: its leader and its lag behind it. */
  replication?: ReplicaLag;
}

/** A replica's view of its leader, as /info gives it (follower.ts ReplicaStatus). */
export interface ReplicaLag {
  leaderUrl: string;
  /** `connecting`, `following`, `unreachable` or `stopped`. */
  connection: string;
  writerCheckpoint: number;
  /** The leader's durable end as it last said; -1 before it said. */
  leaderWriterCheckpoint: number;
  lagBytes: number;
  lagSeconds: number;
  lastError?: string;
}

export async function nodeStatus(client: NodeClient): Promise<NodeStatus> {
  const info = await client.json<{ state?: unknown; svcVersion?: unknown; replication?: Partial<ReplicaLag> }>('GET', '/info');
  if (typeof info.state !== 'string' || typeof info.svcVersion !== 'string') {
    throw Errors.clientUnexpectedReply.create(`the node at ${client.url}`, 'answered GET /info without its state and version');
  }
  const status: NodeStatus = { url: client.url, state: info.state, version: info.svcVersion, serving: SERVING_STATES.has(info.state) };
  const replication = replicaLagOf(info.replication);
  return replication ? { ...status, replication } : status;
}

function replicaLagOf(replication: Partial<ReplicaLag> | undefined): ReplicaLag | undefined {
  if (replication === undefined || typeof replication.leaderUrl !== 'string' || typeof replication.connection !== 'string') return undefined;
  const number = (value: unknown) => (typeof value === 'number' ? value : -1);
  return {
    leaderUrl: replication.leaderUrl, connection: replication.connection, writerCheckpoint: number(replication.writerCheckpoint),
    leaderWriterCheckpoint: number(replication.leaderWriterCheckpoint), lagBytes: number(replication.lagBytes), lagSeconds: number(replication.lagSeconds),
    ...(typeof replication.lastError === 'string' ? { lastError: replication.lastError } : {}),
  };
}

/**
 * A node that answers but does not serve is an error, so that the exit code says so; so is a
 * replica cut off from its leader: it serves, but what it serves grows no more.
 */
export function checkServing(status: NodeStatus): NodeStatus {
  if (!status.serving) throw Errors.clientNodeNotReady.create(status.url, status.state);
  const replication = status.replication;
  if (replication?.connection === 'unreachable') throw Errors.clientLeaderUnreachable.create(status.url, replication.leaderUrl, replication.lastError ?? '');
  return status;
}

/** One line for people: `<url>: leader, svcdb 0.1.0`, a replica with its leader and lag. */
export function statusLine(status: NodeStatus): string {
  const replication = status.replication;
  if (!replication) return `${status.url}: ${status.state}, svcdb ${status.version}`;
  return `${status.url}: ${status.state} of ${replication.leaderUrl} (${replication.connection}), lag ${formatBytes(replication.lagBytes)}, `
    + `${formatDuration(replication.lagSeconds)}, svcdb ${status.version}`;
}
