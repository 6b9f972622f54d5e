// The README and docs/ stay true: the quick start runs as written against a real node (the svcdb
// commands and the curl lines, whose output is compared with what the README shows), every
// relative link and #anchor leads somewhere, every docs page is linked from the README, and the
// lists rendered from the code (exit codes, serve's options) are up to date.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { renderDocTables, withTable } from '../../src/cli/doc-tables.js';
import { cliPath, repositoryRoot, startServer } from '../helpers/cli.js';
import { tempDirectory } from '../helpers/engine.js';

const run = promisify(execFile);
const read = (file: string) => readFileSync(join(repositoryRoot, file), 'utf8');
const docsPages = readdirSync(join(repositoryRoot, 'docs')).filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`);
const readme = read('README.md');

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-');

/** The headings of a Markdown text, outside code blocks. */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  let inCode = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const heading = /^#+ (.*)$/.exec(line);
    if (heading && !inCode) found.add(anchorOf(heading[1]));
  }
  return found;
}

/** The fenced blocks of the README's quick start, in order. */
function quickStartBlocks(): string[] {
  const start = readme.indexOf('## Quick start');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...section.matchAll(/```(?:sh)?\n([\s\S]*?)```/g)].map((match) => match[1]);
}

t.test('every relative link of the README and docs/ leads to a file, and every #anchor to a heading', async (t) => {
  for (const file of ['README.md', ...docsPages]) {
    for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [path, anchor] = target.split('#');
      const linked = path === '' ? file : normalize(join(dirname(file), path));
      t.ok(existsSync(join(repositoryRoot, linked)), `${file}: ${target} exists`);
      if (anchor && linked.endsWith('.md') && existsSync(join(repositoryRoot, linked))) {
        t.ok(anchors(read(linked)).has(anchor), `${file}: ${target} names a heading of ${linked}`);
      }
    }
  }
});

t.test('the README links every docs page, and starts with the two commands', async (t) => {
  for (const page of docsPages.filter((page) => page !== 'docs/README.md')) t.match(readme, `](${page})`, `README links ${page}`);
  t.match(readme, /^# svcdb\n\n```sh\nnpm ci && npm run serve\nnpm test\n```\n/, 'install-and-start and the tests come first');
  t.ok(readme.split('\n').length < 120, 'the README is a front page; the rest is in docs/');
});

t.test('the tables rendered from the code are up to date (run `npm run docs`)', async (t) => {
  for (const table of renderDocTables(repositoryRoot)) {
    const page = read(`docs/${table.file}`);
    t.equal(withTable(page, table), page, `docs/${table.file}: the ${table.name} table is the code's`);
  }
});

t.test('the quick start works as written against a real node', async (t) => {
  const directory = tempDirectory(t);
  const server = await startServer(t, { dbPath: join(directory, 'db') });
  const [alias, commands, output, curl] = quickStartBlocks();
  t.match(alias, /^alias svcdb="node --no-node-snapshot \$PWD\/bin\/run\.js"\n$/, 'svcdb is the checkout\'s bin/run.js');
  // The alias as a function (a script does not expand aliases), against the test's node.
  const svcdb = `svcdb() { node --no-node-snapshot ${cliPath} "$@"; }`;
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SVC_'))), SVC_URL: server.url };
  const shown = await run('sh', ['-c', `${svcdb}\n${commands}`], { env });
  t.equal(shown.stdout, output, 'svcdb stream append and read print what the README shows');

  const script = curl.replaceAll('http://127.0.0.1:2113', server.url).split('\n').filter((line) => line !== '');
  const joined = script.join('\n').replace(/\\\n/g, ' ').split('\n');
  t.equal(joined.length, 3, 'three curl commands: an append and two reads');
  const append = await run('sh', ['-c', joined[0]]);
  t.match(append.stdout, /^HTTP\/1\.1 201 Created\r\n/, 'the append is 201 Created');
  t.match(append.stdout, new RegExp(`\\r\\nlocation: ${server.url}/streams/orders-1/1\\r\\n`, 'i'), 'with the event\'s URL');
  const event = await run('sh', ['-c', joined[1]]);
  t.equal(event.stdout, '{"orderId":2,"total":7}', 'the event\'s data as appended');
  const feed = JSON.parse((await run('sh', ['-c', joined[2]])).stdout) as { entries: Array<{ data: string }> };
  t.same(feed.entries.map((entry) => JSON.parse(entry.data)), [{ orderId: 2, total: 7 }, { orderId: 1, total: 12.5 }], 'the feed, newest first, with the data');
  const plain = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-u', 'admin:changeit', `${server.url}/streams/orders-1`]);
  t.equal(plain.stdout, '406', 'without the Accept header a read is 406, as the README says');
  t.match(readme, /406 Not Acceptable/);
});
