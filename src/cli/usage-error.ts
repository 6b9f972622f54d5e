/**
 * A wrong command line as one declared error (SVCDB_ERR_CLI_USAGE, exit code 2). oclif's parser
 * errors span several lines, print the whole help and, with --json, serialize the parser's
 * internals; an operator or a script needs one line that names the problem, and one JSON shape
 * for every failure.
 */
import { Errors, type SvcError } from '../common/errors.js';

interface ParserErrorShape {
  message?: unknown;
  /** NonExistentFlagsError: the flags as typed. */
  flags?: unknown;
  /** RequiredArgsError: the missing argument specs; UnexpectedArgsError: the extra words. */
  args?: unknown;
  constructor?: { name?: string };
}

// ANSI colour sequences: oclif colours parts of some messages.
const ansiPattern = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** The problem of a parser error, in one line. */
export function usageProblem(error: unknown): string {
  const shape = (typeof error === 'object' && error !== null ? error : {}) as ParserErrorShape;
  const kind = shape.constructor?.name;
  const words = (list: unknown) => (Array.isArray(list) ? list.map(String) : []);
  if (kind === 'NonExistentFlagsError' && words(shape.flags).length > 0) {
    const flags = words(shape.flags);
    return `unknown flag${flags.length === 1 ? '' : 's'} ${flags.join(', ')}`;
  }
  if (kind === 'RequiredArgsError' && Array.isArray(shape.args)) {
    const names = shape.args.map((arg: { name?: string }) => String(arg.name ?? '').toUpperCase()).filter(Boolean);
    return `missing argument${names.length === 1 ? '' : 's'} ${names.join(', ')}`;
  }
  if (kind === 'UnexpectedArgsError' && words(shape.args).length > 0) {
    const extra = words(shape.args);
    return `unexpected argument${extra.length === 1 ? '' : 's'} ${extra.join(', ')}`;
  }
  return oneLine(String(shape.message ?? error));
}

/** oclif's message without its colours, its "See more help" line and its line breaks. */
function oneLine(message: string): string {
  const lines = message
    .replace(ansiPattern, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^See more help with --help$/.test(line) && !/^The following errors? occurred:$/.test(line));
  // "Parsing --timeout-seconds" then "Expected an integer but received: abc".
  if (lines.length > 1 && /^Parsing --\S+$/.test(lines[0])) return `${lines[0].slice('Parsing '.length)}: ${lines.slice(1).join('; ')}`;
  // "Flag --db expects a value", "Flag --archive can only be specified once".
  return lines.join('; ').replace(/^Flag --/, 'flag --');
}

/** The declared error for a command line the parser refused. */
export function usageError(error: unknown, command?: string): SvcError {
  return Errors.cliUsage.create(usageProblem(error), command);
}
