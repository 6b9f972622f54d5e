/**
 * The rules a persistent subscription group's settings obey, in one place for the node (which
 * refuses a request that breaks one) and the web console (which says what to fix before it
 * sends). Pure: no I/O, nothing of the node, so the console's bundle can carry it.
 */
export const STRATEGIES = ['RoundRobin', 'DispatchToSingle', 'Pinned', 'PinnedByCorrelation'] as const;
export type ConsumerStrategyName = (typeof STRATEGIES)[number];

/** The settings the rules look at. */
export interface CheckedSettings {
  startFrom: number;
  messageTimeoutMilliseconds: number;
  maxRetryCount: number;
  liveBufferSize: number;
  bufferSize: number;
  readBatchSize: number;
  checkPointAfterMilliseconds: number;
  minCheckPointCount: number;
  maxCheckPointCount: number;
  maxSubscriberCount: number;
}

/** Upper bounds that belong to the node's storage; the console leaves them to the node. */
export interface SettingsLimits {
  readBatchSizeMax: number;
  bufferSizeMax: number;
}

const NON_NEGATIVE = ['messageTimeoutMilliseconds', 'maxRetryCount', 'checkPointAfterMilliseconds', 'minCheckPointCount', 'maxCheckPointCount', 'maxSubscriberCount'] as const;

/** What to fix, in the reference's words where it has them; empty when the settings hold. */
export function settingsProblems(settings: CheckedSettings, limits?: SettingsLimits): string[] {
  const problems: string[] = [];
  const { bufferSize, liveBufferSize, readBatchSize, startFrom } = settings;
  if (bufferSize <= 0) problems.push(`Buffer Size (${bufferSize}) must be positive`);
  if (liveBufferSize <= 0) problems.push(`Live Buffer Size (${liveBufferSize}) must be positive`);
  if (readBatchSize <= 0) problems.push(`Read Batch Size (${readBatchSize}) must be positive`);
  if (bufferSize <= readBatchSize) problems.push(`BufferSize (${bufferSize}) must be larger than ReadBatchSize (${readBatchSize})`);
  if (limits && readBatchSize > limits.readBatchSizeMax) problems.push(`Read Batch Size (${readBatchSize}) must be at most ${limits.readBatchSizeMax}`);
  if (limits && bufferSize > limits.bufferSizeMax) problems.push(`Buffer Size (${bufferSize}) must be at most ${limits.bufferSizeMax}`);
  if (startFrom < -1) problems.push(`startFrom (${startFrom}) must be -1 (the end of the stream), 0 or an event number`);
  for (const name of NON_NEGATIVE) {
    if (settings[name] < 0) problems.push(`${name} (${settings[name]}) must not be negative`);
  }
  if (settings.minCheckPointCount > settings.maxCheckPointCount) {
    problems.push(`minCheckPointCount (${settings.minCheckPointCount}) must not be larger than maxCheckPointCount (${settings.maxCheckPointCount})`);
  }
  return problems;
}
