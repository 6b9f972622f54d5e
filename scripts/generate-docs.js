#!/usr/bin/env node
// Writes the tables of docs/ that are rendered from the code (exit codes, serve's options) between
// their markers; run through `npm run docs`, which builds first. A test fails when they are stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderDocTables, withTable } from '../dist/src/cli/doc-tables.js';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const table of renderDocTables(root)) {
  const file = new URL(`../docs/${table.file}`, import.meta.url);
  const page = withTable(readFileSync(file, 'utf8'), table);
  if (page === undefined) throw new Error(`docs/${table.file} has no <!-- ${table.name}:start --> … <!-- ${table.name}:end --> markers`);
  writeFileSync(file, page);
  console.log(`wrote the ${table.name} table of docs/${table.file}`);
}
