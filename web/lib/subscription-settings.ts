/**
 * The settings of a persistent subscription group, as the create and update forms hold them,
 * checked with the node's own rules before anything is sent.
 */
import { settingsProblems, STRATEGIES, type CheckedSettings } from '../../src/common/subscription-rules.js';

export { STRATEGIES };

/** The numbers the node's rules check, and the rest of what the forms edit. */
export interface SubscriptionSettings extends CheckedSettings {
  resolveLinktos: boolean;
  extraStatistics: boolean;
  namedConsumerStrategy: string;
}

export const DEFAULT_SETTINGS: SubscriptionSettings = Object.freeze({
  resolveLinktos: false, startFrom: 0, messageTimeoutMilliseconds: 10000, extraStatistics: false, maxRetryCount: 10,
  liveBufferSize: 500, bufferSize: 500, readBatchSize: 20, checkPointAfterMilliseconds: 1000, minCheckPointCount: 10,
  maxCheckPointCount: 500, maxSubscriberCount: 10, namedConsumerStrategy: 'RoundRobin',
});

export const NUMERIC_SETTINGS = [
  'startFrom', 'messageTimeoutMilliseconds', 'maxRetryCount', 'liveBufferSize', 'bufferSize', 'readBatchSize',
  'checkPointAfterMilliseconds', 'minCheckPointCount', 'maxCheckPointCount', 'maxSubscriberCount',
] as const;

export type NumericSetting = (typeof NUMERIC_SETTINGS)[number];

/** What to fix in `settings`; empty when they may be sent. */
export function settingsErrors(settings: SubscriptionSettings): string[] {
  const notWhole = NUMERIC_SETTINGS.filter((name) => !Number.isSafeInteger(settings[name])).map((name) => `${name} must be a whole number`);
  if (notWhole.length > 0) return notWhole;
  const errors = settingsProblems(settings);
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
