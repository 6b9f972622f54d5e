// The manual's ENVIRONMENT and FILES sections follow the code: every SVC_* variable the node and
// the commands read is listed (test-only hooks are not), and the files a real node makes in its
// data directories are the files FILES describes.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { DATA_DIRECTORIES_TEXT, DATA_FILES } from '../../src/cli/data-files.js';
import { renderManPages } from '../../src/cli/man-pages.js';
import { environmentVariable } from '../../src/common/options/definition.js';
import { optionKeys } from '../../src/common/options/schema.js';
import { backup } from '../../src/maint/backup/backup.js';
import { repositoryRoot } from '../helpers/cli.js';
import { newEvents, tempDirectory } from '../helpers/engine.js';
import { startNode } from '../helpers/node.js';

const pages = await renderManPages(repositoryRoot);
const page = (file: string) => pages.find((candidate) => candidate.file === file)!.content;

/** The text of one section of a rendered page, up to the next. */
function section(content: string, name: string): string {
  const start = content.indexOf(`.SH ${name}\n`);
  if (start < 0) return '';
  const end = content.indexOf('\n.SH ', start + 1);
  return content.slice(start, end < 0 ? undefined : end).replace(/\\-/g, '-');
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

t.test('every SVC_* variable named in src/ is in svcdb(1)\'s ENVIRONMENT, and no test hook is', async (t) => {
  const environment = section(page('svcdb.1'), 'ENVIRONMENT');
  const named = new Set<string>();
  for (const file of sourceFiles(join(repositoryRoot, 'src'))) {
    for (const [name] of readFileSync(file, 'utf8').matchAll(/\bSVC_[A-Z][A-Z0-9_]*\b/g)) named.add(name);
  }
  const hooks = [...named].filter((name) => name.startsWith('SVC_TEST_'));
  t.ok(hooks.length > 0, 'the sources have test hooks (SVC_TEST_*), which must stay out of the manual');
  for (const name of named) {
    if (name.startsWith('SVC_TEST_')) continue;
    t.ok(environment.includes(`.B ${name}\n`), `${name} is listed`);
  }
  for (const key of optionKeys) t.match(section(page('svcdb-serve.1'), 'ENVIRONMENT'), `.B ${environmentVariable(key)}\n`, `serve(1) lists ${environmentVariable(key)}`);
  t.match(environment, /\.B NO_COLOR\n/);

  const userDocs = [
    ...pages.map((rendered) => [rendered.file, rendered.content]),
    ...readdirSync(join(repositoryRoot, 'man')).filter((file) => file.endsWith('.md')).map((file) => [file, readFileSync(join(repositoryRoot, 'man', file), 'utf8')]),
    ...readdirSync(join(repositoryRoot, 'docs')).filter((file) => file.endsWith('.md') && file !== 'development.md')
      .map((file) => [file, readFileSync(join(repositoryRoot, 'docs', file), 'utf8')]),
  ];
  for (const [file, text] of userDocs) {
    for (const hook of hooks) t.notOk(text.includes(hook), `${file} does not name the test hook ${hook}`);
  }
});

t.test('every command page has ENVIRONMENT; the pages about the data directories have FILES', async (t) => {
  for (const rendered of pages.filter((candidate) => candidate.file.endsWith('.1'))) {
    t.match(rendered.content, /\n\.SH ENVIRONMENT\n/, `${rendered.file} has ENVIRONMENT`);
  }
  for (const file of ['svcdb.1', 'svcdb-serve.1', 'svcdb-backup.1', 'svcdb-restore.1']) {
    const files = section(page(file), 'FILES');
    for (const entry of DATA_FILES) t.ok(files.includes(entry.names), `${file} describes ${entry.names}`);
  }
});

t.test('the files of a running node that has been backed up are the files FILES describes', async (t) => {
  const directory = tempDirectory(t);
  const db = join(directory, 'db');
  const index = join(directory, 'index');
  const node = await startNode(t, { engine: { dbPath: db, indexPath: index } });
  // Enough events for several chunks and index files (the tests' small engine).
  for (let i = 0; i < 60; i += 1) await node.engine.append(`files-${i}`, -1, newEvents(20));
  await backup({ db, index, destination: join(tempDirectory(t), 'backup'), differential: false });

  const made = readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)));
  t.ok(made.length > 5, `the node made files: ${made.join(', ')}`);
  // A file still being written (an index file, say) is covered by the rule for .tmp names.
  t.match(DATA_DIRECTORIES_TEXT, /carries \.tmp until it is whole/);
  for (const file of made.filter((name) => !name.endsWith('.tmp'))) {
    t.ok(DATA_FILES.some((entry) => entry.matches(file)), `${file} is described in FILES`);
  }
  for (const entry of DATA_FILES) {
    const found = made.some((file) => entry.matches(file));
    if (!entry.optional) t.ok(found, `${entry.names} is there`);
  }
  for (const name of ['db/svcdb-node.json', 'index/indexmap']) t.ok(made.includes(name), `${name} was made (first backup, index flushed)`);
});
