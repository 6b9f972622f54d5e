/** Rows of the persistent subscriptions list and the paths of a group's resources. */
export interface SubscriptionSummary {
  eventStreamId: string;
  groupName: string;
  status: string;
  averageItemsPerSecond?: number;
  totalItemsProcessed?: number;
  lastProcessedEventNumber?: number;
  lastKnownEventNumber?: number;
  connectionCount?: number;
  totalInFlightMessages?: number;
  parkedMessageCount?: number;
}

/** How many known events the group has not processed yet. */
export function lagOf(summary: SubscriptionSummary): number | undefined {
  const { lastKnownEventNumber: known, lastProcessedEventNumber: processed } = summary;
  if (typeof known !== 'number' || typeof processed !== 'number') return undefined;
  return Math.max(0, known - processed);
}

export function groupPath(stream: string, group: string, suffix = ''): string {
  return `/subscriptions/${encodeURIComponent(stream)}/${encodeURIComponent(group)}${suffix}`;
}

/** The stream holding a group's parked messages. */
export function parkedStream(stream: string, group: string): string {
  return `$persistentsubscription-${stream}::${group}-parked`;
}
