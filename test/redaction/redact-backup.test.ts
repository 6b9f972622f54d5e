import t from 'tap';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { backup } from '../../src/maint/backup/backup.js';
import { verifyBackup } from '../../src/maint/backup/verify.js';
import { openEngine, tempDirectory } from '../helpers/engine.js';
import { buildRedactionDatabase, completedEvents, redactThroughEngine } from '../helpers/redaction.js';

/**
 * A differential backup after a redaction copies the new version of each redacted chunk and drops
 * the old one from the backup, and the backup verifies.
 */

t.test('a differential backup after a redaction holds the new chunk versions only and verifies', async (t) => {
  const directory = await buildRedactionDatabase(t);
  const source = { db: join(directory, 'db'), index: join(directory, 'index') };
  const destination = join(tempDirectory(t), 'backup');
  await backup({ ...source, destination, differential: false, sync: false });

  const engine = await openEngine(directory);
  const switched = await redactThroughEngine(engine, source.db, completedEvents(engine, 2));
  await engine.close();
  t.ok(switched.length >= 2, `redaction switched ${switched.join(', ')}`);

  const result = await backup({ ...source, destination, differential: true, sync: false });
  const copied = result.copied.map((file) => file.file.split('/').pop());
  for (const name of switched) t.ok(copied.includes(name), `${name} was copied`);
  const oldVersions = switched.map((name) => name.replace(/\.000001$/, '.000000'));
  for (const name of oldVersions) t.ok(result.removed.some((path) => path.endsWith(name)), `${name} was dropped`);
  const backedUp = readdirSync(join(destination, 'db')).filter((name) => name.startsWith('chunk-'));
  t.same(backedUp.filter((name) => oldVersions.includes(name)), [], 'the backup holds no old version');
  const verified = await verifyBackup({ source: destination });
  t.equal(verified.kind, 'differential', 'backup verify passes');
});
