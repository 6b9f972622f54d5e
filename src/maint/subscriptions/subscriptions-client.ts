/** The persistent subscriptions API of a node as `svcdb subscription` uses it: list, create, replay parked messages. */
import type { NodeClient } from '../node-client/node-client.js';

export interface SubscriptionSummary {
  eventStreamId: string;
  groupName: string;
  status: string;
  totalItemsProcessed: number;
  lastProcessedEventNumber: number;
  lastKnownEventNumber: number;
  connectionCount: number;
}

const groupPath = (stream: string, group: string) => `/subscriptions/${encodeURIComponent(stream)}/${encodeURIComponent(group)}`;

export async function listSubscriptions(client: NodeClient, stream?: string): Promise<SubscriptionSummary[]> {
  const groups = await client.json<SubscriptionSummary[]>('GET', stream === undefined ? '/subscriptions' : `/subscriptions/${encodeURIComponent(stream)}`);
  return groups.map(({ eventStreamId, groupName, status, totalItemsProcessed, lastProcessedEventNumber, lastKnownEventNumber, connectionCount }) => ({
    eventStreamId, groupName, status, totalItemsProcessed, lastProcessedEventNumber, lastKnownEventNumber, connectionCount,
  }));
}

/** Settings of a new group, by the API's names; the node's defaults for the rest. */
export type GroupSettings = Record<string, string | number | boolean>;

export async function createSubscription(client: NodeClient, stream: string, group: string, settings: GroupSettings): Promise<void> {
  await client.send({ method: 'PUT', path: groupPath(stream, group), body: settings });
}

export async function replayParked(client: NodeClient, stream: string, group: string): Promise<void> {
  await client.send({ method: 'POST', path: `${groupPath(stream, group)}/replayParked` });
}
