/**
 * oclif's `command_not_found` hook: an unknown command is a usage error like an unknown flag, with
 * exit code 2, one line on stderr (or the error object on stdout with --json) and the nearest
 * command as a suggestion (`svcdb bakcup` → `svcdb backup`, `svcdb scavenge strat` → `svcdb
 * scavenge start`). With topics separated by spaces, oclif also lands here for an extra word
 * after a command that takes no argument (`svcdb serve extra`); that is reported as such.
 *
 * @oclif/plugin-not-found is not used: it exits 127, asks on a terminal whether to run the
 * suggested command (running a command nobody typed, against a database), and has no --json.
 */
import { ux, type Hook, type Interfaces } from '@oclif/core';
import { Errors, type SvcError } from '../common/errors.js';
import { childNames, nearestChild, spaced } from './command-suggestions.js';
import { ExitCode } from './exit-codes.js';
import { errorJson, formatUsageError } from './output.js';

interface Report {
  error: SvcError;
  hint: string;
}

/** The longest run of leading words that names a command or a topic. */
function knownPrefix(config: Interfaces.Config, words: string[]): { id: string; length: number; isCommand: boolean } {
  for (let length = words.length - 1; length > 0; length--) {
    const id = words.slice(0, length).join(':');
    if (config.findCommand(id)) return { id, length, isCommand: true };
    if (childNames(config, id).length > 0) return { id, length, isCommand: false };
  }
  return { id: '', length: 0, isCommand: false };
}

/** `near` with as many of the following words as make a command with it (`backup` + `verify`). */
function completed(config: Interfaces.Config, near: string, rest: string[]): string {
  for (let length = rest.length; length > 0; length--) {
    const id = [near, ...rest.slice(0, length)].join(':');
    if (config.findCommand(id)) return id;
  }
  return near;
}

function report(id: string, config: Interfaces.Config): Report {
  const words = id.split(':');
  const rootHint = `See ${config.bin} --help for the list of commands.`;
  if (id.startsWith('-')) {
    return { error: Errors.cliUsage.create(`unknown flag ${id} before any command; flags go after the command`), hint: rootHint };
  }
  const known = knownPrefix(config, words);
  if (known.isCommand) {
    const extra = words.slice(known.length);
    const problem = `unexpected argument${extra.length === 1 ? '' : 's'} ${extra.join(', ')}`;
    return { error: Errors.cliUsage.create(problem, spaced(config, known.id)), hint: `See ${spaced(config, known.id)} --help.` };
  }
  const word = words[known.length];
  const typed = words.slice(0, known.length + 1).join(' ');
  const near = nearestChild(config, known.id, word);
  // The words after the mistyped one, kept when they complete the suggestion (`bakcup verify`).
  const suggestion = near === undefined ? undefined : completed(config, near, words.slice(known.length + 1));
  const hint = known.id === '' ? rootHint : `See ${spaced(config, known.id)} --help; its commands: ${childNames(config, known.id).join(', ')}.`;
  const didYouMean = suggestion === undefined ? '' : `; did you mean ${spaced(config, suggestion)}?`;
  return { error: Errors.cliUsage.create(`unknown command ${typed}${didYouMean}`), hint };
}

const hook: Hook.CommandNotFound = async function commandNotFound({ id, argv, config }) {
  const { error, hint } = report(id, config);
  const words = argv ?? [];
  const end = words.indexOf('--');
  if ((end === -1 ? words : words.slice(0, end)).includes('--json')) {
    ux.stdout(JSON.stringify(errorJson(error, hint, ExitCode.usage), null, 2));
  } else {
    ux.stderr(formatUsageError(error, hint));
  }
  // Throws oclif's ExitError: the exit code, and nothing more printed.
  this.exit(ExitCode.usage);
};

export default hook;
