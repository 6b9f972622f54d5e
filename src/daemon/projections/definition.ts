/**
 * What a projection's source declared when it ran once: where its events come from, how they are
 * partitioned, which handlers it has and its options. The host reads the events and the sandbox
 * runs the handlers; both follow this.
 */
export interface QuerySources {
  all: boolean;
  streams: string[];
  categories: string[];
}

export interface QueryOptions {
  resultStreamName?: string;
  includeLinks: boolean;
  reorderEvents: boolean;
  processingLagMs: number;
  biState: boolean;
  partitionResultStreamPattern?: string;
}

export interface QueryDefinition {
  sources: QuerySources;
  byStream: boolean;
  byCustomPartitions: boolean;
  /** Event types with a handler, and `$any`, `$init`, `$initShared`, `$deleted`, `$created` when present. */
  handlers: string[];
  options: QueryOptions;
  outputState: boolean;
  outputTo: { stream: string; partitionPattern: string | null } | null;
}

const PROCESSING_LAG_MS_DEFAULT = 500;
/** Reordering with a shorter lag would hand events over before others written with them were read. */
export const PROCESSING_LAG_MS_MIN = 50;

export class DefinitionError extends Error {}

interface Description {
  sources: QuerySources; byStream: boolean; byCustomPartitions: boolean; handlers: string[];
  options: Record<string, unknown>; outputState: boolean; outputTo: QueryDefinition['outputTo']; biState: boolean;
}

const TAMPERED = 'the projection\'s definition could not be read; does the source replace JSON or Object.prototype.toJSON?';

/** The runtime's description, checked field by field: projection code can reach what builds it. */
function readDescription(json: unknown): Description {
  if (typeof json !== 'string') throw new DefinitionError(TAMPERED);
  let raw: Description;
  try {
    raw = JSON.parse(json) as Description;
  } catch {
    throw new DefinitionError(TAMPERED);
  }
  const names = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === 'string');
  const valid = raw !== null && typeof raw === 'object' && raw.sources !== null && typeof raw.sources === 'object' &&
    typeof raw.sources.all === 'boolean' && names(raw.sources.streams) && names(raw.sources.categories) && names(raw.handlers) &&
    raw.options !== null && typeof raw.options === 'object' && typeof raw.byStream === 'boolean' && typeof raw.byCustomPartitions === 'boolean';
  if (!valid) throw new DefinitionError(TAMPERED);
  return raw;
}

export function parseDefinition(json: unknown): QueryDefinition {
  const raw = readDescription(json);
  const { sources } = raw;
  if (!sources.all && sources.streams.length === 0 && sources.categories.length === 0) {
    throw new DefinitionError('the projection selects no events: call fromAll(), fromStream(s) or fromCategory/ies() first');
  }
  if (raw.byStream && raw.byCustomPartitions) throw new DefinitionError('foreachStream() and partitionBy() exclude each other');
  const options = raw.options;
  const lag = options.processingLag;
  if (lag !== undefined && (typeof lag !== 'number' || !Number.isFinite(lag) || lag < 0)) {
    throw new DefinitionError('options({processingLag}) is a number of milliseconds, 0 or more');
  }
  if (options.reorderEvents === true) checkReordering(sources, typeof lag === 'number' ? lag : PROCESSING_LAG_MS_DEFAULT);
  return {
    sources, byStream: raw.byStream, byCustomPartitions: raw.byCustomPartitions, handlers: raw.handlers,
    outputState: raw.outputState, outputTo: raw.outputTo,
    options: {
      resultStreamName: typeof options.resultStreamName === 'string' && options.resultStreamName !== '' ? options.resultStreamName : undefined,
      includeLinks: options.$includeLinks === true,
      reorderEvents: options.reorderEvents === true,
      processingLagMs: typeof lag === 'number' && lag >= 0 ? lag : PROCESSING_LAG_MS_DEFAULT,
      biState: raw.biState,
      partitionResultStreamPattern: typeof options.partitionResultStreamPattern === 'string' ? options.partitionResultStreamPattern : undefined,
    },
  };
}

/** reorderEvents orders the events of several streams: fromStreams or fromCategories of two or more, with a lag. */
function checkReordering(sources: QuerySources, lagMs: number): void {
  if (sources.all || sourceStreams(sources).length < 2) {
    throw new DefinitionError('options({reorderEvents: true}) orders the events of several streams: use it with fromStreams() or fromCategories() of two or more names');
  }
  if (lagMs < PROCESSING_LAG_MS_MIN) {
    throw new DefinitionError(`options({reorderEvents: true}) needs a processingLag of at least ${PROCESSING_LAG_MS_MIN} ms`);
  }
}

/** A $ce- stream stands for the category after the prefix. */
export const CATEGORY_STREAM_PREFIX = '$ce-';

/**
 * The streams a projection reads: a category is its `$ce-` stream, which $by_category fills with
 * links to the category's events (by its own separator and first/last rule) and to the deletions
 * of its streams.
 */
export function sourceStreams(sources: Pick<QuerySources, 'streams' | 'categories'>): string[] {
  return [...sources.streams, ...sources.categories.map((category) => CATEGORY_STREAM_PREFIX + category)];
}
