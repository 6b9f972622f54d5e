/** How commands show errors and results to a person (colour only where the terminal has it). */
import { chalkStderr } from 'chalk';
import type { SvcError } from '../common/errors.js';

export function formatError(error: SvcError, hint: string): string {
  const title = `${chalkStderr.red.bold('Error:')} ${error.message} ${chalkStderr.dim(`(${error.code})`)}`;
  return `${title}\n${chalkStderr.yellow('Hint:')} ${hint}`;
}

/** The shape `--json` prints when a command fails with a declared error. */
export interface ErrorJson {
  error: { code: string; message: string; hint: string; exitCode: number; details: Record<string, unknown> };
}

export function errorJson(error: SvcError, hint: string, exitCode: number): ErrorJson {
  return { error: { code: error.code, message: error.message, hint, exitCode, details: error.details } };
}
