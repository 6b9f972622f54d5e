/**
 * The settings of a persistent subscription group, as the create and update forms hold them,
 * checked the way the node checks them before anything is sent.
 */
export interface SubscriptionSettings {
  resolveLinktos: boolean;
  startFrom: number;
  messageTimeoutMilliseconds: number;
  extraStatistics: boolean;
  maxRetryCount: number;
  liveBufferSize: number;
  bufferSize: number;
  readBatchSize: number;
  checkPointAfterMilliseconds: number;
  minCheckPointCount: number;
  maxCheckPointCount: number;
  maxSubscriberCount: number;
  namedConsumerStrategy: string;
}

export const DEFAULT_SETTINGS: SubscriptionSettings = Object.freeze({
  resolveLinktos: false, startFrom: 0, messageTimeoutMilliseconds: 10000, extraStatistics: false, maxRetryCount: 10,
  liveBufferSize: 500, bufferSize: 500, readBatchSize: 20, checkPointAfterMilliseconds: 1000, minCheckPointCount: 10,
  maxCheckPointCount: 500, maxSubscriberCount: 10, namedConsumerStrategy: 'RoundRobin',
});

export const STRATEGIES = ['RoundRobin', 'DispatchToSingle', 'Pinned', 'PinnedByCorrelation'] as const;

export const NUMERIC_SETTINGS = [
  'startFrom', 'messageTimeoutMilliseconds', 'maxRetryCount', 'liveBufferSize', 'bufferSize', 'readBatchSize',
  'checkPointAfterMilliseconds', 'minCheckPointCount', 'maxCheckPointCount', 'maxSubscriberCount',
] as const;

export type NumericSetting = (typeof NUMERIC_SETTINGS)[number];

/** What to fix in `settings`; empty when they may be sent. */
export function settingsErrors(settings: SubscriptionSettings): string[] {
  const errors: string[] = [];
  for (const name of NUMERIC_SETTINGS) {
    if (!Number.isSafeInteger(settings[name])) errors.push(`${name} must be a whole number`);
  }
  if (settings.startFrom < -1) errors.push('startFrom must be -1 (the end of the stream) or an event number');
  for (const name of ['bufferSize', 'liveBufferSize', 'readBatchSize'] as const) {
    if (settings[name] <= 0) errors.push(`${name} (${settings[name]}) must be positive`);
  }
  if (settings.bufferSize <= settings.readBatchSize) errors.push(`bufferSize (${settings.bufferSize}) must be larger than readBatchSize (${settings.readBatchSize})`);
  for (const name of ['messageTimeoutMilliseconds', 'maxRetryCount', 'checkPointAfterMilliseconds', 'minCheckPointCount', 'maxCheckPointCount', 'maxSubscriberCount'] as const) {
    if (settings[name] < 0) errors.push(`${name} must not be negative`);
  }
  if (settings.minCheckPointCount > settings.maxCheckPointCount) errors.push('minCheckPointCount must not be above maxCheckPointCount');
  if (!(STRATEGIES as readonly string[]).includes(settings.namedConsumerStrategy)) errors.push(`namedConsumerStrategy must be one of ${STRATEGIES.join(', ')}`);
  return errors;
}

/** The settings a node reported (an info document's `config`), over the defaults. */
export function settingsOf(config: Record<string, unknown> | undefined): SubscriptionSettings {
  const settings: SubscriptionSettings = { ...DEFAULT_SETTINGS };
  if (!config) return settings;
  for (const key of Object.keys(settings) as Array<keyof SubscriptionSettings>) {
    const value = config[key];
    if (typeof value === typeof settings[key]) (settings as unknown as Record<string, unknown>)[key] = value;
  }
  return settings;
}
