/**
 * The system streams of persistent subscriptions, named as the wire note names them: one config
 * stream for every group's definition, and per group a checkpoint stream and a parked stream.
 */

export const CONFIG_STREAM = '$persistentSubscriptionConfig';
export const CONFIG_EVENT_TYPE = '$PersistentConfig';
export const CHECKPOINT_EVENT_TYPE = 'SubscriptionCheckpoint';
export const PARKED_EVENT_TYPE = '$>';

function groupStreamPrefix(streamName: string, group: string): string {
  return `$persistentsubscription-${streamName}::${group}`;
}

export function checkpointStreamOf(streamName: string, group: string): string {
  return `${groupStreamPrefix(streamName, group)}-checkpoint`;
}

export function parkedStreamOf(streamName: string, group: string): string {
  return `${groupStreamPrefix(streamName, group)}-parked`;
}

/** How a group is named in stats, metrics and logs. */
export function groupKey(streamName: string, group: string): string {
  return `${streamName}::${group}`;
}
