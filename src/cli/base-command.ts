/**
 * The base of every svcdb command. A declared error (SvcError) ends the command with its
 * documented exit code and a hint, never a stack trace; with --json it is printed as JSON.
 * A command line the parser refuses becomes SVCDB_ERR_CLI_USAGE (exit code 2) the same way.
 * Anything else is a bug and goes to oclif's handler with its stack.
 */
import { Command, type Interfaces } from '@oclif/core';
import { isSvcError } from '../common/errors.js';
import { ExitCode, exitCodeFor } from './exit-codes.js';
import { hintFor, usageHintFor } from './hints.js';
import { errorJson, formatError, formatUsageError } from './output.js';
import { usageError } from './usage-error.js';

/** What the parser returns for flags and arguments, by name. */
type Values = Record<string, unknown>;

export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true;

  /** `svcdb backup verify`: the command as an operator types it. */
  protected commandLine(): string {
    return `${this.config.bin} ${this.id === undefined ? '' : this.id.replace(/:/g, ' ')}`.trim();
  }

  protected override async parse<F extends Values, B extends Values, A extends Values>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    try {
      return await super.parse(options, argv);
    } catch (error) {
      // Everything the parser throws is about the command line: unknown or repeated flags, bad
      // values, missing or extra arguments, flags that exclude each other.
      throw usageError(error, this.commandLine());
    }
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (!isSvcError(error)) return super.catch(error);
    const exitCode = exitCodeFor(error.code);
    const usage = exitCode === ExitCode.usage;
    const hint = usage ? usageHintFor(error.code, this.commandLine()) : hintFor(error.code);
    if (this.jsonEnabled()) this.logJson(errorJson(error, hint, exitCode));
    else this.logToStderr(usage ? formatUsageError(error, hint) : formatError(error, hint));
    // Throws oclif's ExitError, which exits with this code and prints nothing more.
    return this.exit(exitCode);
  }
}
