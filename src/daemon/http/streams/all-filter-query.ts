/**
 * The query of `/streams/$all/filtered…`: `context=eventtype|streamid&type=prefix|regex&data=…`
 * (prefixes comma-separated, or one regular expression), and/or `exclude-system-events=true`.
 * Names of contexts and types are case-insensitive. The filter is written back in one canonical
 * form for the feed's links, so that following them keeps the filter.
 */
import { Errors } from '../../../common/errors.js';
import type { AllFilter } from '../../../storage/read/reader.js';
import { compileFilter, type FilterContext, type FilterSpec, type FilterType } from '../../services/event-filter.js';

export interface FilteredRead {
  filter: AllFilter;
  /** The filter as a query string, without `?`. */
  query: string;
}

const CONTEXTS: readonly string[] = ['eventtype', 'streamid'];
const TYPES: readonly string[] = ['prefix', 'regex'];

/** A parameter given at most once; repeated, it is ambiguous. */
function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined || typeof value === 'string') return value;
  throw Errors.filterInvalid.create(`give ${name} once`);
}

function matchOf(query: Record<string, unknown>): FilterSpec['match'] {
  const context = single(query, 'context')?.toLowerCase();
  const type = single(query, 'type')?.toLowerCase();
  const data = single(query, 'data');
  if (context === undefined && type === undefined && data === undefined) return undefined;
  if (context === undefined || !CONTEXTS.includes(context)) throw Errors.filterInvalid.create('context is eventtype or streamid');
  if (type === undefined || !TYPES.includes(type)) throw Errors.filterInvalid.create('type is prefix or regex');
  if (data === undefined) throw Errors.filterInvalid.create('data holds the prefixes, comma-separated, or the regular expression');
  return { context: context as FilterContext, type: type as FilterType, data: type === 'regex' ? [data] : data.split(',') };
}

export function filteredRead(rawQuery: unknown): FilteredRead {
  const query = (rawQuery ?? {}) as Record<string, unknown>;
  const exclude = single(query, 'exclude-system-events')?.toLowerCase();
  if (exclude !== undefined && exclude !== 'true' && exclude !== 'false') {
    throw Errors.filterInvalid.create('exclude-system-events is true or false');
  }
  const spec: FilterSpec = { match: matchOf(query), excludeSystemEvents: exclude === 'true' };
  const filter = compileFilter(spec);
  const canonical: string[] = [];
  if (spec.match) {
    // Commas stay as they are, so a list of prefixes reads as the client wrote it.
    const data = encodeURIComponent(spec.match.data.join(',')).replaceAll('%2C', ',');
    canonical.push(`context=${spec.match.context}`, `type=${spec.match.type}`, `data=${data}`);
  }
  if (spec.excludeSystemEvents) canonical.push('exclude-system-events=true');
  return { filter, query: canonical.join('&') };
}
