#!/usr/bin/env node
// Writes man/svcdb.1, man/svcdb-<command>.1 and man/svcdb-errors.7 from the compiled commands
// (run through `npm run man`, which builds first), removes pages of commands that are gone, and
// lists the pages in package.json's "man" so that a global install puts them on man's path.
import { readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderManPages } from '../dist/src/cli/man-pages.js';

const root = fileURLToPath(new URL('..', import.meta.url));
// The trailing slash makes the pages' URLs resolve inside man/, not beside it.
const manDirectory = new URL('../man/', import.meta.url);
const pages = await renderManPages(root);
const names = new Set(pages.map((page) => page.file));
for (const page of pages) writeFileSync(new URL(page.file, manDirectory), page.content);
for (const file of readdirSync(manDirectory)) {
  if (/^svcdb.*\.[17]$/.test(file) && !names.has(file)) unlinkSync(new URL(file, manDirectory));
}

const packageFile = new URL('../package.json', import.meta.url);
const packageJson = JSON.parse(readFileSync(packageFile, 'utf8'));
const man = pages.map((page) => `./man/${page.file}`);
if (JSON.stringify(packageJson.man) !== JSON.stringify(man)) {
  packageJson.man = man;
  writeFileSync(packageFile, `${JSON.stringify(packageJson, null, 2)}\n`);
  console.log('listed the pages in package.json "man"');
}
console.log(`wrote ${pages.length} pages to man/: ${[...names].join(', ')}`);
