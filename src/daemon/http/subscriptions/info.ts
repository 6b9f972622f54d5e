/**
 * What `GET /subscriptions[/{stream}]` and `…/{group}/info` say about groups, in the wire note's
 * fields: positions as strings beside the older numeric fields, counts of the buffers, in-flight
 * and parked messages, and the consumers ("connections") with their user and rate.
 */
import type { SubscriptionGroup } from '../../subscriptions/group.js';
import type { Consumer } from '../../subscriptions/consumers.js';
import { groupUrl, parkedStreamUrl } from './urls.js';

function common(group: SubscriptionGroup, base: string) {
  const { stream, group: name } = group.definition;
  const url = groupUrl(base, stream, name);
  return {
    url,
    fields: {
      eventStreamId: stream,
      groupName: name,
      parkedMessageUri: parkedStreamUrl(base, group.parked.streamName),
      getMessagesUri: `${url}/1`,
      status: group.status,
    },
  };
}

/** One group in a list. */
export function groupSummary(group: SubscriptionGroup, base: string) {
  const { url, fields } = common(group, base);
  return {
    links: [{ href: `${url}/info`, rel: 'detail' }],
    ...fields,
    averageItemsPerSecond: group.measure().averageItemsPerSecond,
    totalItemsProcessed: group.totalItemsProcessed,
    lastProcessedEventNumber: group.lastProcessedEventNumber,
    lastCheckpointedEventPosition: String(group.lastCheckpoint),
    lastKnownEventNumber: group.lastKnownEventNumber,
    lastKnownEventPosition: String(group.lastKnownEventNumber),
    connectionCount: group.consumers.size,
    totalInFlightMessages: group.inFlightCount,
  };
}

function connection(consumer: Consumer, nowMs: number) {
  const { averageItemsPerSecond, countSinceLastMeasurement } = consumer.measure(nowMs);
  return {
    from: consumer.identity.from,
    username: consumer.identity.username,
    averageItemsPerSecond,
    totalItemsProcessed: consumer.totalItemsProcessed,
    countSinceLastMeasurement,
    extraStatistics: [],
    availableSlots: Math.max(0, consumer.requestedCount - consumer.inFlight),
    inFlightMessages: consumer.inFlight,
    connectionName: consumer.identity.connectionName,
  };
}

/** One group in detail. */
export function groupInfo(group: SubscriptionGroup, base: string, nowMs: number) {
  const { url, fields } = common(group, base);
  const rate = group.measure();
  return {
    links: [{ href: `${url}/info`, rel: 'detail' }, { href: `${url}/replayParked`, rel: 'replayParked' }],
    config: { ...group.settings, startPosition: group.settings.startPosition ?? String(group.settings.startFrom) },
    ...fields,
    averageItemsPerSecond: rate.averageItemsPerSecond,
    totalItemsProcessed: group.totalItemsProcessed,
    countSinceLastMeasurement: rate.countSinceLastMeasurement,
    lastProcessedEventNumber: group.lastProcessedEventNumber,
    lastCheckpointedEventPosition: String(group.lastCheckpoint),
    lastKnownEventNumber: group.lastKnownEventNumber,
    lastKnownEventPosition: String(group.lastKnownEventNumber),
    readBufferCount: group.bufferedCount,
    liveBufferCount: 0,
    retryBufferCount: group.retryCount,
    totalInFlightMessages: group.inFlightCount,
    outstandingMessagesCount: group.inFlightCount,
    parkedMessageCount: group.parked.count(),
    connections: group.consumers.list().map((consumer) => connection(consumer, nowMs)),
  };
}
