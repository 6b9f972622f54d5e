// Archives are written and read by one tar library (node-tar), and what it writes is an ordinary
// tar.gz: GNU tar lists the same entries, with their sizes, that the backup reports.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { backup } from '../../src/maint/backup/backup.js';
import { repositoryRoot } from '../helpers/cli.js';
import { newEvents, openEngine, tempDirectory } from '../helpers/engine.js';

const run = promisify(execFile);

t.test('one tar library in the dependencies', async (t) => {
  const packageJson = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
  const all = { ...packageJson.dependencies, ...packageJson.devDependencies };
  t.ok(all.tar, 'node-tar writes and reads archives');
  t.same(['archiver', 'tar-stream', 'tar-fs', '@types/archiver'].filter((name) => name in all), [], 'and no other tar library');
});

t.test('GNU tar reads the archive a backup writes', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(join(directory, 'source'));
  for (let i = 0; i < 5; i += 1) await engine.append(`tar-${i}`, -1, newEvents(3));
  await engine.close();
  const archive = join(directory, 'node.tar.gz');
  const result = await backup({ db: join(directory, 'source', 'db'), index: join(directory, 'source', 'index'), archive, differential: false });
  const { stdout } = await run('tar', ['-tzvf', archive]);
  const listed = new Map(stdout.trim().split('\n').map((line) => {
    const fields = line.split(/\s+/);
    return [fields.at(-1)!, Number(fields[2])] as const;
  }));
  t.equal([...listed.keys()][0], 'svcdb-backup.json', 'the manifest comes first');
  for (const { file, bytes } of result.copied.filter((copied) => !copied.file.startsWith('db/chunk-'))) {
    t.equal(listed.get(file), bytes, `${file}: ${bytes} bytes`);
  }
  t.ok([...listed.keys()].some((file) => file.startsWith('db/chunk-')), 'the chunks are in it');
});
