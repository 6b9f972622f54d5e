// Every error code the registry declares is documented in man/errors.md with its HTTP status
// and exit code, every documented code exists, and the README points at the reference.
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { ExitCode, exitCodeFor } from '../src/cli/exit-codes.js';
import { allErrors } from '../src/common/errors.js';

const root = new URL('..', import.meta.url);
const reference = await readFile(new URL('man/errors.md', root), 'utf8');
const readme = await readFile(new URL('README.md', root), 'utf8');

// A row of an error table: | `CODE` | status | exit | meaning | what to do |
const rowPattern = /^\|\s*`(SVCDB_ERR_[A-Z0-9]+(?:_[A-Z0-9]+)*)`\s*\|\s*(\d{3})\s*\|\s*(\d+)\s*\|(.*)$/gm;
const rows = new Map<string, { statusCode: number; exitCode: number; text: string }>();
const duplicates: string[] = [];
for (const match of reference.matchAll(rowPattern)) {
  const [, code, statusCode, exitCode, text] = match as unknown as [string, string, string, string, string];
  if (rows.has(code)) duplicates.push(code);
  rows.set(code, { statusCode: Number(statusCode), exitCode: Number(exitCode), text });
}

t.test('every declared code has a row with its HTTP status and exit code', async (t) => {
  t.ok(allErrors().length > 0, 'the registry declares errors');
  for (const definition of allErrors()) {
    const row = rows.get(definition.code);
    if (!row) {
      t.fail(`${definition.code} is not documented in man/errors.md`);
      continue;
    }
    t.equal(row.statusCode, definition.statusCode, `${definition.code}: documented HTTP status`);
    t.equal(row.exitCode, exitCodeFor(definition.code), `${definition.code}: documented exit code`);
    t.match(row.text, /^\s*\S[^|]*\|\s*\S[^|]*\|\s*$/, `${definition.code}: meaning and what to do are filled in`);
  }
});

t.test('every documented code is declared, once', async (t) => {
  const declared = new Set(allErrors().map((definition) => definition.code));
  for (const code of rows.keys()) t.ok(declared.has(code), `${code} is declared in src/common/errors.ts`);
  t.same(duplicates, [], 'no code has two rows');
  // Codes mentioned in prose are held to the same rule as table rows.
  for (const [code] of reference.matchAll(/SVCDB_ERR_[A-Z0-9]+(?:_[A-Z0-9]+)*/g)) {
    t.ok(declared.has(code), `${code} mentioned in man/errors.md is declared`);
  }
});

t.test('every exit code is documented', async (t) => {
  for (const [name, exitCode] of Object.entries(ExitCode)) {
    t.match(reference, new RegExp(`^\\| ${exitCode} \\| \\S`, 'm'), `exit code ${exitCode} (${name}) has a row`);
  }
});

t.test('the README links the error reference', async (t) => {
  t.match(readme, /\]\(man\/errors\.md\)/, 'README links man/errors.md');
});
