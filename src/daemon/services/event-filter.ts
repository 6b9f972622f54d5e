/**
 * Server-side filters of `$all`: by event type or stream name, by a list of prefixes or by a
 * regular expression, or only leaving out system events (types starting with `$`).
 *
 * Regular expressions come from clients and run over every event read, so they are compiled by
 * RE2JS, whose matching time is linear in the input: no pattern can make a read hang, as a
 * backtracking engine can be made to. RE2 syntax has no backreferences or lookaround.
 */
import { RE2JS } from 're2js';
import { Errors } from '../../common/errors.js';
import type { EventRecord } from '../../storage/log/record.js';
import type { AllFilter } from '../../storage/read/reader.js';

export type FilterContext = 'eventtype' | 'streamid';
export type FilterType = 'prefix' | 'regex';

export interface FilterSpec {
  /** What is matched: the event type or the stream name; absent with only excludeSystemEvents. */
  match?: { context: FilterContext; type: FilterType; data: string[] };
  excludeSystemEvents: boolean;
}

/** Events one page of a filtered read looks at, at most, before it ends early. */
export const FILTER_SCAN_LIMIT = 10_000;
/** A regular expression longer than this is refused: compiling it would cost too much. */
export const FILTER_REGEX_CHARS_MAX = 1_000;
/** At most this many prefixes. */
export const FILTER_PREFIXES_MAX = 100;

function matcherOf(type: FilterType, data: string[]): (text: string) => boolean {
  if (type === 'prefix') {
    if (data.length > FILTER_PREFIXES_MAX) throw Errors.filterInvalid.create(`at most ${FILTER_PREFIXES_MAX} prefixes are allowed`);
    if (data.some((prefix) => prefix.length === 0)) throw Errors.filterInvalid.create('a prefix is empty; separate prefixes by single commas');
    return (text) => data.some((prefix) => text.startsWith(prefix));
  }
  const [pattern] = data;
  if (data.length !== 1 || pattern.length === 0) throw Errors.filterInvalid.create('a regex filter takes one non-empty regular expression');
  if (pattern.length > FILTER_REGEX_CHARS_MAX) throw Errors.filterInvalid.create(`the regular expression is longer than ${FILTER_REGEX_CHARS_MAX} characters`);
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(pattern);
  } catch (error) {
    throw Errors.filterInvalid.create(`${(error as Error).message} (RE2 syntax: no backreferences or lookaround)`);
  }
  return (text) => regex.test(text);
}

/** Compiles a filter; a coded 400 (SVCDB_ERR_FILTER_INVALID) says what is wrong with it. */
export function compileFilter(spec: FilterSpec): AllFilter {
  const { match, excludeSystemEvents } = spec;
  if (!match && !excludeSystemEvents) throw Errors.filterInvalid.create('give context, type and data, or exclude-system-events=true');
  const matches = match ? matcherOf(match.type, match.data) : undefined;
  const subject = match?.context === 'streamid' ? (event: EventRecord) => event.streamName : (event: EventRecord) => event.eventType;
  return {
    scanLimit: FILTER_SCAN_LIMIT,
    accepts: (event) => (!excludeSystemEvents || !event.eventType.startsWith('$')) && (!matches || matches(subject(event))),
  };
}
