/**
 * Man pages from the commands' own metadata (summary, description, flags, examples), the error
 * registry and the exit codes: `svcdb.1`, one `svcdb-<command>.1` per command and
 * `svcdb-errors.7`. `npm run man` writes them to man/; a test fails when a checked-in page
 * differs from what this renders. No dates or versions go in, so a page changes only when its
 * source does.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '@oclif/core';
import { configFromCompiledCommands } from './command-manifest.js';
import { allErrors } from '../common/errors.js';
import { environmentVariable, flagName } from '../common/options/definition.js';
import { optionKeys } from '../common/options/schema.js';
import { DATA_DIRECTORIES_TEXT, DATA_FILES } from './data-files.js';
import { ExitCode, exitCodeFor } from './exit-codes.js';
import { hintFor } from './hints.js';

export interface ManPage {
  /** File name under man/. */
  file: string;
  content: string;
}

type Flag = Command.Loadable['flags'][string];

/** Text made safe for roff: backslashes, dashes, and control characters at the start of a line. */
function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');
}

/**
 * What each exit code means, from the exit code table of man/errors.md (a test keeps that table
 * complete), so the meanings are written once.
 */
function exitCodeMeanings(root: string): Map<number, string> {
  const reference = readFileSync(join(root, 'man', 'errors.md'), 'utf8');
  const meanings = new Map<number, string>();
  for (const match of reference.matchAll(/^\| (\d+) \| (.+?) \|$/gm)) meanings.set(Number(match[1]), match[2].replace(/`/g, ''));
  return meanings;
}

function exitStatusSection(meanings: Map<number, string>, pointToErrors = true): string[] {
  const lines = ['.SH EXIT STATUS'];
  for (const code of Object.values(ExitCode)) lines.push('.TP', `.B ${code}`, roff(meanings.get(code) ?? ''));
  if (pointToErrors) lines.push('.PP', roff('Every error code, with its exit code and HTTP status, is listed in svcdb-errors(7).'));
  return lines;
}

/** Variables read by every command: bin/run.js turns colours off for NO_COLOR. */
const COMMON_VARIABLES: ReadonlyArray<[string, string]> = [['NO_COLOR', 'Set to anything: no colours in the output (as --no-color).']];

interface Variable {
  name: string;
  /** The flag it stands for. */
  flag: string;
}

/**
 * The environment variables a command reads: its flags' `env` and, for serve, the variable of
 * every node option (the option loader reads those itself, so serve's flags declare none).
 */
function commandVariables(command: Command.Loadable): Variable[] {
  const variables = command.id === 'serve' ? optionKeys.map((key) => ({ name: environmentVariable(key), flag: flagName(key) })) : [];
  for (const flag of Object.values(command.flags)) {
    if (flag.env && !flag.hidden) variables.push({ name: flag.env, flag: flag.name });
  }
  return variables;
}

function commandVariableTexts(command: Command.Loadable): Array<[string, string]> {
  const wins = command.id === 'serve' ? 'a flag wins over it, and it wins over the --config file' : 'which wins over it';
  return [...commandVariables(command).map(({ name, flag }): [string, string] => [name, `As --${flag}; ${wins}.`]), ...COMMON_VARIABLES];
}

function environmentSection(variables: ReadonlyArray<[string, string]>): string[] {
  const lines = ['.SH ENVIRONMENT'];
  for (const [name, text] of variables) lines.push('.TP', `.B ${roff(name)}`, roff(text));
  return lines;
}

/** The commands whose pages describe the data directories' files. */
const COMMANDS_WITH_FILES = new Set(['serve', 'backup', 'restore', 'redact']);

function filesSection(): string[] {
  const lines = ['.SH FILES', roff(DATA_DIRECTORIES_TEXT)];
  for (const file of DATA_FILES) lines.push('.TP', `.I ${roff(file.names)}`, roff(file.what));
  return lines;
}

function pageName(id: string): string {
  return `svcdb-${id.replace(/:/g, '-')}`;
}

function commandLine(bin: string, id: string): string {
  return `${bin} ${id.replace(/:/g, ' ')}`;
}

function flagLabel(flag: Flag): string {
  const name = `\\fB\\-\\-${roff(flag.name)}\\fR`;
  if (flag.type === 'boolean') return flag.allowNo ? `${name} | \\fB\\-\\-no\\-${roff(flag.name)}\\fR` : name;
  return `${name} \\fI${roff(flag.helpValue ? String(flag.helpValue) : 'VALUE')}\\fR`;
}

function flagItems(flag: Flag): string[] {
  const lines = ['.TP', flagLabel(flag)];
  if (flag.summary) lines.push(roff(flag.summary));
  const details: string[] = [];
  if (flag.description) details.push(flag.description);
  if (flag.type === 'option' && flag.options) details.push(`One of: ${flag.options.join(', ')}.`);
  if (flag.type === 'option' && flag.default !== undefined) details.push(`Default: ${String(flag.default)}.`);
  if (flag.env) details.push(`Environment: ${flag.env}.`);
  if (details.length > 0) lines.push(...(flag.summary ? ['.br'] : []), roff(details.join(' ')));
  return lines;
}

function optionsSection(flags: Record<string, Flag>): string[] {
  const visible = Object.values(flags).filter((flag) => !flag.hidden);
  if (visible.length === 0) return [];
  const groups = new Map<string, Flag[]>();
  for (const flag of visible) {
    const group = flag.helpGroup ?? 'GLOBAL';
    groups.set(group, [...(groups.get(group) ?? []), flag]);
  }
  const lines = ['.SH OPTIONS'];
  const several = groups.size > 1;
  for (const [group, members] of groups) {
    if (several) lines.push(`.SS ${roff(group[0] + group.slice(1).toLowerCase())}`);
    for (const flag of members) lines.push(...flagItems(flag));
  }
  return lines;
}

function commandPage(bin: string, command: Command.Loadable, meanings: Map<number, string>): ManPage {
  const name = pageName(command.id);
  const line = commandLine(bin, command.id);
  const args = Object.values(command.args ?? {}).map((arg) => (arg.required ? arg.name.toUpperCase() : `[${arg.name.toUpperCase()}]`));
  const lines = [
    `.TH ${name.toUpperCase()} 1 "" "svcdb" "svcdb manual"`,
    '.SH NAME',
    `${roff(name)} \\- ${roff(command.summary ?? '')}`,
    '.SH SYNOPSIS',
    `.B ${roff(line)}`,
    `[\\fIOPTIONS\\fR]${args.length > 0 ? ` ${roff(args.join(' '))}` : ''}`,
  ];
  if (command.description) lines.push('.SH DESCRIPTION', roff(command.description));
  lines.push(...optionsSection(command.flags));
  const examples = (command.examples ?? []).map((example) => (typeof example === 'string' ? example : example.command));
  if (examples.length > 0) {
    lines.push('.SH EXAMPLES', '.nf');
    for (const example of examples) lines.push(roff(example.replace(/<%= config.bin %>/g, bin).replace(/<%= command.id %>/g, command.id.replace(/:/g, ' '))));
    lines.push('.fi');
  }
  lines.push(...exitStatusSection(meanings), ...environmentSection(commandVariableTexts(command)));
  if (COMMANDS_WITH_FILES.has(command.id)) lines.push(...filesSection());
  lines.push('.SH SEE ALSO', roff(`${bin}(1), svcdb-errors(7)`));
  return { file: `${name}.1`, content: `${lines.join('\n')}\n` };
}

/** Every variable any command reads, once, sorted, with the flag it stands for and its commands (NO_COLOR last). */
function allVariables(commands: Command.Loadable[]): Array<[string, string]> {
  const uses = new Map<string, Map<string, string[]>>();
  for (const command of commands) {
    for (const { name, flag } of commandVariables(command)) {
      const byFlag = uses.get(name) ?? new Map<string, string[]>();
      byFlag.set(flag, [...(byFlag.get(flag) ?? []), command.id.replace(/:/g, ' ')]);
      uses.set(name, byFlag);
    }
  }
  const texts = [...uses.keys()].sort().map((name): [string, string] => {
    const flags = [...uses.get(name)!].map(([flag, ids]) => `--${flag} of ${ids.join(', ')}`);
    return [name, `As ${flags.join('; ')}.`];
  });
  return [...texts, ...COMMON_VARIABLES];
}

function overviewPage(bin: string, description: string, commands: Command.Loadable[], meanings: Map<number, string>): ManPage {
  const lines = [
    '.TH SVCDB 1 "" "svcdb" "svcdb manual"',
    '.SH NAME',
    `${bin} \\- ${roff(description)}`,
    '.SH SYNOPSIS',
    `.B ${bin}`,
    '\\fICOMMAND\\fR [\\fIOPTIONS\\fR]',
    '.br',
    `.B ${bin}`,
    '\\fICOMMAND\\fR \\fB\\-\\-help\\fR',
    '.SH COMMANDS',
  ];
  for (const command of commands) lines.push('.TP', `.B ${roff(commandLine(bin, command.id))}`, roff(command.summary ?? ''));
  lines.push(...exitStatusSection(meanings), ...environmentSection(allVariables(commands)), ...filesSection());
  const seeAlso = [...commands.map((command) => `${pageName(command.id)}(1)`), 'svcdb-errors(7)'];
  lines.push('.SH SEE ALSO', roff(seeAlso.join(', ')));
  return { file: `${bin}.1`, content: `${lines.join('\n')}\n` };
}

function errorsPage(meanings: Map<number, string>): ManPage {
  const lines = [
    '.TH SVCDB-ERRORS 7 "" "svcdb" "svcdb manual"',
    '.SH NAME',
    'svcdb\\-errors \\- the error codes of svcdb, their HTTP status and exit code',
    '.SH DESCRIPTION',
    roff('Every error svcdb reports has a stable code SVCDB_ERR_<AREA>_<WHAT>; clients and scripts match on the code, never on the message. '
      + 'Over HTTP an error is a reply with the status below and the JSON body {"code":"SVCDB_ERR_...","message":"..."}. '
      + 'A command that stops on an error prints its message, code and a hint on stderr (as JSON with --json) and exits with the exit code below.'),
    '.SH ERRORS',
  ];
  for (const error of allErrors()) {
    lines.push('.TP', `.B ${roff(error.code)}`,
      roff(`HTTP ${error.statusCode}, exit code ${exitCodeFor(error.code)}: ${error.summary}.`), '.br', roff(hintFor(error.code)));
  }
  lines.push(...exitStatusSection(meanings, false), '.SH SEE ALSO', 'svcdb(1)');
  return { file: 'svcdb-errors.7', content: `${lines.join('\n')}\n` };
}

/** Every page, rendered from the commands compiled under `root` (the package directory). */
export async function renderManPages(root: string): Promise<ManPage[]> {
  const config = await configFromCompiledCommands(root);
  const commands = [...config.commands].filter((command) => !command.hidden).sort((a, b) => a.id.localeCompare(b.id));
  const meanings = exitCodeMeanings(root);
  return [
    overviewPage(config.bin, String(config.pjson.description ?? ''), commands, meanings),
    ...commands.map((command) => commandPage(config.bin, command, meanings)),
    errorsPage(meanings),
  ];
}
