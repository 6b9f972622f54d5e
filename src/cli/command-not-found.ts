/**
 * oclif's `command_not_found` hook: an unknown command is a usage error like an unknown flag, with
 * exit code 2, one line on stderr (or the error object on stdout with --json) and the nearest
 * command as a suggestion. With topics separated by spaces, oclif also lands here for an extra
 * word after a command that takes no argument (`svcdb serve extra`); that is reported as such.
 */
import { ux, type Hook, type Interfaces } from '@oclif/core';
import { Errors, type SvcError } from '../common/errors.js';
import { ExitCode } from './exit-codes.js';
import { errorJson, formatUsageError } from './output.js';

interface Report {
  error: SvcError;
  hint: string;
}

function report(id: string, config: Interfaces.Config): Report {
  const words = id.split(':');
  const spaced = (commandId: string) => `${config.bin} ${commandId.replace(/:/g, ' ')}`;
  for (let length = words.length - 1; length > 0; length--) {
    const commandId = words.slice(0, length).join(':');
    if (config.findCommand(commandId)) {
      const extra = words.slice(length);
      const problem = `unexpected argument${extra.length === 1 ? '' : 's'} ${extra.join(', ')}`;
      return { error: Errors.cliUsage.create(problem, spaced(commandId)), hint: `See ${spaced(commandId)} --help.` };
    }
  }
  const hint = `See ${config.bin} --help for the list of commands.`;
  if (id.startsWith('-')) {
    return { error: Errors.cliUsage.create(`unknown flag ${id} before any command; flags go after the command`), hint };
  }
  const known = config.commandIDs.filter((commandId) => !config.findCommand(commandId)?.hidden);
  const near = known.find((commandId) => commandId.slice(0, 3) === id.slice(0, 3));
  const suggestion = near === undefined ? '' : `; did you mean ${spaced(near)}?`;
  return { error: Errors.cliUsage.create(`unknown command ${words[0]}${suggestion}`), hint };
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
