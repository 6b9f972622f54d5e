/**
 * Flags shared by the stream commands: the expected version of append and delete, and the
 * position, count and filters of $all of read and tail (maint/streams/all-filter.ts turns the
 * filters into the node's query).
 */
import { Flags } from '@oclif/core';
import { EXPECTED_VERSION_HELP, expectedVersionOf } from './expected-version.js';

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
