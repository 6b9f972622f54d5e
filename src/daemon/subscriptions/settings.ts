/**
 * The settings of a subscription group (the reference's SubscriptionItem), with the wire note's
 * defaults. A request body names them in camelCase or PascalCase (`resolveLinktos`,
 * `ResolveLinkTos`): keys are matched without regard to case. Values are checked here once, with
 * the reference's messages where it has them; the group trusts them afterwards.
 */
import { Errors } from '../../common/errors.js';
import { settingsProblems, STRATEGIES, type ConsumerStrategyName } from '../../common/subscription-rules.js';
import { READ_COUNT_MAX } from '../../storage/streams/request-checks.js';

export { STRATEGIES, type ConsumerStrategyName };

export interface SubscriptionSettings {
  resolveLinktos: boolean;
  /** -1: the end of the stream when the group is created; otherwise the first event number. */
  startFrom: number;
  startPosition: string | null;
  messageTimeoutMilliseconds: number;
  extraStatistics: boolean;
  maxRetryCount: number;
  liveBufferSize: number;
  bufferSize: number;
  readBatchSize: number;
  preferRoundRobin: boolean;
  checkPointAfterMilliseconds: number;
  minCheckPointCount: number;
  maxCheckPointCount: number;
  /** 0: no limit. */
  maxSubscriberCount: number;
  namedConsumerStrategy: ConsumerStrategyName;
}

export const DEFAULT_SETTINGS: Readonly<SubscriptionSettings> = Object.freeze({
  resolveLinktos: false,
  startFrom: 0,
  startPosition: null,
  messageTimeoutMilliseconds: 10_000,
  extraStatistics: false,
  maxRetryCount: 10,
  liveBufferSize: 500,
  bufferSize: 500,
  readBatchSize: 20,
  preferRoundRobin: true,
  checkPointAfterMilliseconds: 1000,
  minCheckPointCount: 10,
  maxCheckPointCount: 500,
  maxSubscriberCount: 10,
  namedConsumerStrategy: 'RoundRobin',
});

/** Messages a group keeps read ahead in memory, at most: the buffer is memory held per group. */
export const BUFFER_SIZE_MAX = 100_000;

type Kind = 'boolean' | 'integer' | 'string';

const FIELD_KINDS: Record<keyof SubscriptionSettings, Kind> = {
  resolveLinktos: 'boolean', startFrom: 'integer', startPosition: 'string', messageTimeoutMilliseconds: 'integer',
  extraStatistics: 'boolean', maxRetryCount: 'integer', liveBufferSize: 'integer', bufferSize: 'integer',
  readBatchSize: 'integer', preferRoundRobin: 'boolean', checkPointAfterMilliseconds: 'integer',
  minCheckPointCount: 'integer', maxCheckPointCount: 'integer', maxSubscriberCount: 'integer', namedConsumerStrategy: 'string',
};

/** The one field whose null means something: the wire note's default body has `"startPosition": null`. */
const NULLABLE_FIELDS: ReadonlySet<keyof SubscriptionSettings> = new Set(['startPosition']);

const FIELDS_BY_LOWER_NAME = new Map(Object.keys(FIELD_KINDS).map((name) => [name.toLowerCase(), name as keyof SubscriptionSettings]));

const invalid = (why: string) => Errors.subscriptionSettingsInvalid.create(why);

function valueOf(name: string, field: keyof SubscriptionSettings, value: unknown): unknown {
  const kind = FIELD_KINDS[field];
  if (value === null) {
    if (NULLABLE_FIELDS.has(field)) return null;
    throw invalid(`${name} must not be null; leave it out for the default`);
  }
  if (kind === 'boolean') {
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false' || value === 'True' || value === 'False') return value.toLowerCase() === 'true';
    throw invalid(`${name} must be true or false, not ${JSON.stringify(value)}`);
  }
  if (kind === 'integer') {
    const number = typeof value === 'string' && /^-?\d{1,16}$/.test(value.trim()) ? Number(value) : value;
    if (typeof number === 'number' && Number.isSafeInteger(number)) return number;
    throw invalid(`${name} must be an integer, not ${JSON.stringify(value)}`);
  }
  if (typeof value === 'string') return value;
  throw invalid(`${name} must be a string, not ${JSON.stringify(value)}`);
}

/** The body's fields over `base` (the defaults on create, the group's settings on update). */
export function settingsOf(body: unknown, base: Readonly<SubscriptionSettings> = DEFAULT_SETTINGS): SubscriptionSettings {
  if (body === undefined || body === null || body === '') return checked({ ...base });
  if (typeof body !== 'object' || Array.isArray(body)) throw invalid('the body must be a JSON object of settings (SubscriptionItem)');
  const settings: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    const name = FIELDS_BY_LOWER_NAME.get(key.toLowerCase());
    // Fields of other versions of the protocol are ignored, as its clients send them.
    if (name === undefined || value === undefined) continue;
    settings[name] = valueOf(key, name, value);
  }
  return checked(settings as unknown as SubscriptionSettings);
}

function strategyOf(settings: SubscriptionSettings): ConsumerStrategyName {
  const named = settings.namedConsumerStrategy as string;
  // An empty strategy leaves the choice to preferRoundRobin, as the wire note says.
  if (named === '') return settings.preferRoundRobin ? 'RoundRobin' : 'DispatchToSingle';
  const found = STRATEGIES.find((strategy) => strategy.toLowerCase() === named.toLowerCase());
  if (found === undefined) throw invalid(`namedConsumerStrategy '${named}' is not one of ${STRATEGIES.join(', ')}`);
  return found;
}

function startOf(settings: SubscriptionSettings): number {
  if (settings.startPosition === null || settings.startPosition === '') return settings.startFrom;
  const text = settings.startPosition.trim();
  if (!/^-?\d{1,16}$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw invalid(`startPosition '${settings.startPosition}' must be an event number of the stream, or -1 for its end`);
  }
  return Number(text);
}

function checked(settings: SubscriptionSettings): SubscriptionSettings {
  const result = { ...settings, namedConsumerStrategy: strategyOf(settings), startFrom: startOf(settings) };
  const [problem] = settingsProblems(result, { readBatchSizeMax: READ_COUNT_MAX, bufferSizeMax: BUFFER_SIZE_MAX });
  if (problem !== undefined) throw invalid(problem);
  return result;
}
