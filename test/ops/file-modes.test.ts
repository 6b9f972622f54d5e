import t from 'tap';
import { randomUUID } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { adminFetch } from '../helpers/auth.js';
import { startServer } from '../helpers/cli.js';
import { tempDirectory } from '../helpers/engine.js';

/**
 * A node's data is for the node's user alone: `svcdb serve` creates its data directories 0700
 * and its chunk files, checkpoints and index files 0600, as the redaction socket already was
 * (other local users could read every event before). The test runs under a umask that takes
 * nothing away, so the modes are the node's own choice.
 */

const directory = tempDirectory(t);
const dbPath = join(directory, 'data', 'db');
const indexPath = join(directory, 'data', 'index');
const previousUmask = process.umask(0);
t.teardown(() => process.umask(previousUmask));
const server = await startServer(t, { dbPath, args: ['--index', indexPath, '--chunk-size', '65536', '--enable-unix-socket'] });
process.umask(previousUmask);

for (let batch = 0; batch < 40; batch++) {
  const events = Array.from({ length: 5 }, () => ({ eventId: randomUUID(), eventType: 'Padded', data: { pad: 'p'.repeat(400) } }));
  const response = await adminFetch(`${server.url}/streams/modes`, { method: 'POST', headers: { 'content-type': 'application/vnd.svc.events+json' }, body: JSON.stringify(events) });
  if (response.status !== 201) throw new Error(`append: ${response.status}`);
}
await adminFetch(`${server.url}/admin/mergeindexes`, { method: 'POST' });
await server.process.stop('SIGTERM');

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** Every file and directory under `root`, with its path relative to `directory`. */
function walk(root: string): string[] {
  return readdirSync(root, { withFileTypes: true }).flatMap((entry) => {
    const path = join(root, entry.name);
    return entry.isDirectory() ? [path, ...walk(path)] : [path];
  });
}

t.test('the data directories are 0700', async (t) => {
  for (const path of [dbPath, indexPath, join(directory, 'data')]) t.equal(mode(path), '700', path);
});

t.test('chunk files, checkpoints and index files are 0600; directories under them 0700', async (t) => {
  const chunks = readdirSync(dbPath).filter((name) => name.startsWith('chunk-'));
  t.ok(chunks.length >= 2, `${chunks.length} chunk files, a completed one among them`);
  for (const path of [...walk(dbPath), ...walk(indexPath)]) {
    const expected = statSync(path).isDirectory() ? '700' : '600';
    t.equal(mode(path), expected, path.slice(directory.length));
  }
});
