/**
 * The base of every svcdb command. A declared error (SvcError) ends the command with its
 * documented exit code and a hint, never a stack trace; with --json it is printed as JSON.
 * Anything else is a bug and goes to oclif's handler with its stack.
 */
import { Command } from '@oclif/core';
import { isSvcError } from '../common/errors.js';
import { exitCodeFor } from './exit-codes.js';
import { hintFor } from './hints.js';
import { errorJson, formatError } from './output.js';

export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true;

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (!isSvcError(error)) return super.catch(error);
    const exitCode = exitCodeFor(error.code);
    const hint = hintFor(error.code);
    if (this.jsonEnabled()) this.logJson(errorJson(error, hint, exitCode));
    else this.logToStderr(formatError(error, hint));
    // Throws oclif's ExitError, which exits with this code and prints nothing more.
    return this.exit(exitCode);
  }
}
