// Engine.close() closes every file it opened even when a step before fails. Regression: with the
// database directory gone (tap removes a test's directory before its teardown stops a node),
// writing chaser.chk at close threw and the chunk and checkpoint FileHandles stayed open; once
// the engine was unreachable the collector closed them, with Node's "Closing file descriptor N
// on garbage collection" warning (DEP0137).
import t from 'tap';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { descriptorsUnder, newEvents, openEngine, tempDirectory } from '../helpers/engine.js';

t.test('close with the database directory gone: the error is reported, and every file is closed anyway', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  await engine.append('stream', -1, newEvents(3));
  t.ok(descriptorsUnder(directory).length > 0, 'the engine holds files under its directory');
  rmSync(join(directory, 'db'), { recursive: true, force: true });
  await t.rejects(engine.close(), { code: 'ENOENT' }, 'chaser.chk could not be written');
  t.same(descriptorsUnder(directory), [], 'no file under the directory is open any more');
  t.equal(engine.status().state, 'closed', 'and the engine is closed, not stuck closing');
});
