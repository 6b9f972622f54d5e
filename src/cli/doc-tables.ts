/**
 * The lists of docs/ that must not drift from the code, rendered from it: the exit codes (their
 * meanings from man/errors.md, whose table a test keeps complete) in docs/cli.md, and every
 * option of `svcdb serve` in docs/configuration.md. Each sits between two HTML comments;
 * `npm run docs` writes them and a test fails when a page differs from what this renders.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configKey, describeValues, environmentVariable, flagName } from '../common/options/definition.js';
import { optionKeys, optionSchema } from '../common/options/schema.js';
import { ExitCode } from './exit-codes.js';

export interface DocTable {
  /** Under docs/. */
  file: string;
  /** The name in `<!-- NAME:start -->` and `<!-- NAME:end -->`. */
  name: string;
  content: string;
}

/** Table cells: a pipe would end the cell, a line break the row. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

function exitCodeTable(root: string): string {
  const reference = readFileSync(join(root, 'man', 'errors.md'), 'utf8');
  const meanings = new Map<number, string>();
  for (const match of reference.matchAll(/^\| (\d+) \| (.+?) \|$/gm)) meanings.set(Number(match[1]), match[2]);
  const rows = Object.values(ExitCode).map((code) => `| ${code} | ${meanings.get(code) ?? ''} |`);
  return ['| Exit code | Meaning |', '|---|---|', ...rows].join('\n');
}

function optionTable(): string {
  const rows = optionKeys.map((key) => {
    const definition = optionSchema[key];
    return `| \`--${flagName(key)}\` | \`${environmentVariable(key)}\` | \`${configKey(key)}\` | ${cell(definition.group)} | ${cell(`${definition.description} ${describeValues(definition)}`)} |`;
  });
  return ['| Flag | Environment | Config file key | Group | What it does |', '|---|---|---|---|---|', ...rows].join('\n');
}

export function renderDocTables(root: string): DocTable[] {
  return [
    { file: 'cli.md', name: 'exit-codes', content: exitCodeTable(root) },
    { file: 'configuration.md', name: 'options', content: optionTable() },
  ];
}

/** `page` with the table put between its markers; undefined when the page has no such markers. */
export function withTable(page: string, table: DocTable): string | undefined {
  const start = `<!-- ${table.name}:start -->`;
  const end = `<!-- ${table.name}:end -->`;
  const from = page.indexOf(start);
  const to = page.indexOf(end);
  if (from < 0 || to < from) return undefined;
  return `${page.slice(0, from + start.length)}\n${table.content}\n${page.slice(to)}`;
}
