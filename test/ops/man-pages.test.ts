// The man pages in man/ are generated from the commands' own metadata (`npm run man`): each
// checked-in page must equal what the generator renders now, and none may be missing or extra.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { renderManPages } from '../../src/cli/man-pages.js';
import { repositoryRoot } from '../helpers/cli.js';

const manDirectory = join(repositoryRoot, 'man');
const pages = await renderManPages(repositoryRoot);

t.test('there is a page per command, an overview and the error page', async (t) => {
  const files = pages.map((page) => page.file);
  t.ok(files.includes('svcdb.1'), 'svcdb.1');
  t.ok(files.includes('svcdb-serve.1'), 'svcdb-serve.1');
  t.ok(files.includes('svcdb-errors.7'), 'svcdb-errors.7 lists the error codes');
  t.match(pages.find((page) => page.file === 'svcdb-errors.7')?.content, /SVCDB_ERR_OPTION_INVALID/);
  t.match(pages.find((page) => page.file === 'svcdb-serve.1')?.content, /scavenge\\-history\\-max\\-age/, 'serve\'s page lists its options');
});

t.test('every checked-in page is up to date (run `npm run man` after changing a command)', async (t) => {
  for (const page of pages) {
    let checkedIn: string | undefined;
    try {
      checkedIn = readFileSync(join(manDirectory, page.file), 'utf8');
    } catch {
      checkedIn = undefined;
    }
    t.ok(checkedIn !== undefined, `man/${page.file} exists`);
    if (checkedIn !== undefined) t.ok(checkedIn === page.content, `man/${page.file} is not stale`);
  }
  const expected = new Set(pages.map((page) => page.file));
  const extra = readdirSync(manDirectory).filter((file) => /^svcdb.*\.[17]$/.test(file) && !expected.has(file));
  t.same(extra, [], 'no page of a command that no longer exists');
});

t.test('package.json lists every page in "man", so a global install puts them on man\'s path', async (t) => {
  const packageJson = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as { man?: string[]; files: string[] };
  t.same(packageJson.man, pages.map((page) => `./man/${page.file}`), '"man" lists the generated pages (npm run man keeps it)');
  t.ok(packageJson.files.includes('man'), 'the package ships man/');
  for (const page of pages) {
    const section = page.file.slice(page.file.lastIndexOf('.') + 1);
    t.match(page.content, new RegExp(`^\\.TH \\S+ ${section} `), `${page.file}: its .TH section is its file's (${section}), which npm installs it under`);
  }
});

t.test('help texts point at man pages, never at files of the repository', async (t) => {
  for (const page of pages) {
    t.notMatch(page.content, /man\/\S+\.md/, `${page.file} names no man/*.md file`);
  }
  for (const page of pages.filter((page) => page.file.endsWith('.1') && page.file !== 'svcdb.1')) {
    const name = page.file.replace(/\.1$/, '');
    t.ok(page.content.includes(`man ${name.replace(/-/g, '\\-')};`), `${page.file} points at man ${name}`);
    t.ok(page.content.includes('man svcdb\\-errors.'), `${page.file} points at man svcdb-errors`);
  }
});
