/** How commands show errors and results to a person (colour only where the terminal has it). */
import { chalkStderr } from 'chalk';
import type { SvcError } from '../common/errors.js';

export function formatError(error: SvcError, hint: string): string {
  const title = `${chalkStderr.red.bold('Error:')} ${error.message} ${chalkStderr.dim(`(${error.code})`)}`;
  return `${title}\n${chalkStderr.yellow('Hint:')} ${hint}`;
}

/**
 * A wrong command line in one line, so a script's log or a terminal shows the problem and the fix
 * together; the help that oclif would print after it would push the problem off the screen.
 */
export function formatUsageError(error: SvcError, hint: string): string {
  return `${chalkStderr.red.bold('Error:')} ${error.message} ${chalkStderr.dim(`(${error.code})`)}. ${chalkStderr.yellow('Hint:')} ${hint}`;
}

/** The shape `--json` prints when a command fails with a declared error. */
export interface ErrorJson {
  error: { code: string; message: string; hint: string; exitCode: number; details: Record<string, unknown> };
}

export function errorJson(error: SvcError, hint: string, exitCode: number): ErrorJson {
  return { error: { code: error.code, message: error.message, hint, exitCode, details: error.details } };
}
