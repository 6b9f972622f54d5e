/**
 * The base of every svcdb command. A declared error (SvcError) ends the command with its
 * documented exit code and a hint, never a stack trace; with --json it is printed as JSON.
 * A command line the parser refuses becomes SVCDB_ERR_CLI_USAGE (exit code 2) the same way.
 * Anything else is a bug and goes to oclif's handler with its stack.
 */
import { Command, Flags, type Interfaces } from '@oclif/core';
import { Errors, isSvcError } from '../common/errors.js';
import { nearestChild, spaced } from './command-suggestions.js';
import { ExitCode, exitCodeFor } from './exit-codes.js';
import { hintFor, usageHintFor } from './hints.js';
import { errorJson, formatError, formatUsageError } from './output.js';
import { usageError } from './usage-error.js';

/** What the parser returns for flags and arguments, by name. */
type Values = Record<string, unknown>;

export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true;

  static override baseFlags = {
    // Read by chalk and oclif from the command line themselves; declared so the parser accepts it.
    color: Flags.boolean({
      summary: 'Colours on a terminal; --no-color (or the NO_COLOR variable) turns them off.',
      allowNo: true,
      default: true,
      helpGroup: 'GLOBAL',
    }),
  };

  /** `svcdb backup verify`: the command as an operator types it. */
  protected commandLine(): string {
    return `${this.config.bin} ${this.id === undefined ? '' : this.id.replace(/:/g, ' ')}`.trim();
  }

  protected override async parse<F extends Values, B extends Values, A extends Values>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    this.refuseMistypedSubcommand(argv ?? this.argv);
    try {
      return await super.parse(options, argv);
    } catch (error) {
      // Everything the parser throws is about the command line: unknown or repeated flags, bad
      // values, missing or extra arguments, flags that exclude each other.
      throw usageError(error, this.commandLine());
    }
  }

  /**
   * `svcdb backup verfy /x` must not back up into ./verfy: a first argument that is a near miss of
   * a subcommand of this command is refused with the suggestion. A path that only looks like one
   * is written so that it does not (./verfy).
   */
  private refuseMistypedSubcommand(argv: string[]): void {
    const id = this.id ?? '';
    const word = argv.find((arg) => !arg.startsWith('-'));
    if (id === '' || word === undefined || argv.indexOf(word) !== 0) return;
    const near = nearestChild(this.config, id, word);
    if (near === undefined) return;
    throw Errors.cliUsage.create(`unknown command ${spaced(this.config, `${id}:${word}`)}; did you mean ${spaced(this.config, near)}? `
      + `(to give ${word} as an argument, write ./${word})`);
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
