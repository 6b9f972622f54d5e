/** The filter of $all that the flags of `svcdb stream read` and `tail` ask for, as the node's query. */
import { Errors } from '../../common/errors.js';
import type { AllFilter } from './read.js';
import { ALL_STREAM } from './wire.js';

export type FilterFlagValues = { 'event-type-prefix'?: string; 'stream-prefix'?: string; 'event-type-regex'?: string; 'stream-regex'?: string; 'exclude-system-events': boolean };

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
