/**
 * Flags shared by the stream commands: the expected version of append and delete, and the
 * position, count and filters of $all of read and tail.
 */
import { Flags } from '@oclif/core';
import { Errors } from '../common/errors.js';
import { EXPECTED_VERSION_HELP, expectedVersionOf } from '../maint/streams/expected-version.js';
import type { AllFilter } from '../maint/streams/read.js';
import { ALL_STREAM } from '../maint/streams/wire.js';

const helpGroup = 'FILTER ($all)';

/** --expected-version of a write (`what`: append, delete). */
export function expectedVersionFlag(what: string) {
  return Flags.string({
    char: 'e',
    summary: `${what} only if the stream is at this version: ${EXPECTED_VERSION_HELP} (its last event number).`,
    helpValue: 'VERSION',
  });
}

/** The number the node takes for --expected-version, when it was given. */
export function expectedVersionOfFlag(text: string | undefined): number | undefined {
  return text === undefined ? undefined : expectedVersionOf(text);
}

/** --from and --count of read and tail; `start` says where they begin without --from. */
export function positionFlags(start: string, countSummary: string) {
  return {
    from: Flags.string({ char: 'f', summary: `First event number (or $all position) to print; ${start} by default.`, helpValue: 'N' }),
    count: Flags.integer({ char: 'n', summary: countSummary, min: 1 }),
  };
}

export const allFilterFlags = {
  'event-type-prefix': Flags.string({ summary: 'Only events whose type starts with one of these prefixes (comma-separated).', helpValue: 'PREFIXES', helpGroup }),
  'stream-prefix': Flags.string({ summary: 'Only events of streams whose name starts with one of these prefixes (comma-separated).', helpValue: 'PREFIXES', helpGroup }),
  'event-type-regex': Flags.string({ summary: 'Only events whose type matches this regular expression.', helpValue: 'REGEX', helpGroup }),
  'stream-regex': Flags.string({ summary: 'Only events of streams whose name matches this regular expression.', helpValue: 'REGEX', helpGroup }),
  'exclude-system-events': Flags.boolean({ summary: 'Leave out events whose type starts with $.', default: false, helpGroup }),
};

type FilterFlagValues = { 'event-type-prefix'?: string; 'stream-prefix'?: string; 'event-type-regex'?: string; 'stream-regex'?: string; 'exclude-system-events': boolean };

/** The filter the flags ask for, as the node's query; undefined when none is set. */
export function allFilterOf(stream: string, flags: FilterFlagValues, commandLine: string): AllFilter | undefined {
  const matches: [string, string, string | undefined][] = [
    ['eventtype', 'prefix', flags['event-type-prefix']], ['streamid', 'prefix', flags['stream-prefix']],
    ['eventtype', 'regex', flags['event-type-regex']], ['streamid', 'regex', flags['stream-regex']],
  ];
  const given = matches.filter(([, , value]) => value !== undefined);
  if (given.length === 0 && !flags['exclude-system-events']) return undefined;
  if (stream !== ALL_STREAM) throw Errors.cliUsage.create(`filters apply to $all only, not to stream ${stream}`, commandLine);
  if (given.length > 1) throw Errors.cliUsage.create('give one of --event-type-prefix, --stream-prefix, --event-type-regex, --stream-regex', commandLine);
  const query = new URLSearchParams();
  for (const [context, type, data] of given) {
    query.set('context', context);
    query.set('type', type);
    query.set('data', String(data));
  }
  if (flags['exclude-system-events']) query.set('exclude-system-events', 'true');
  return { query: query.toString() };
}
