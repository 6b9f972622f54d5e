import t from 'tap';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Errors } from '../src/common/errors.js';
import { silentLogger, type Logger } from '../src/common/logger.js';
import { StreamExistenceFilter, type StreamExistenceFilterOptions } from '../src/storage/index/existence-filter.js';
import { defaultStreamHasher } from '../src/storage/index/stream-hash.js';
import { pollUntil } from './helpers/wait.js';

const SIZE = 64 * 1024;

function options(directory: string, extra: Partial<StreamExistenceFilterOptions> = {}): StreamExistenceFilterOptions {
  return { directory, sizeBytes: SIZE, hasher: defaultStreamHasher, logger: silentLogger, ...extra };
}

function names(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix}-${index}`);
}

function recordingLogger(): Logger & { warnings: object[]; errors: object[] } {
  const logger = {
    ...silentLogger,
    warnings: [] as object[],
    errors: [] as object[],
    warn: (object: object) => void logger.warnings.push(object),
    error: (object: object) => void logger.errors.push(object),
    child: () => logger,
  };
  return logger;
}

async function checkpointOnDisk(directory: string): Promise<number> {
  const bytes = await readFile(join(directory, 'streamExistenceFilter.chk'));
  return Number(bytes.readBigInt64LE(0));
}

t.test('a new filter covers nothing and knows no stream', async (t) => {
  const directory = t.testdir();
  const filter = await StreamExistenceFilter.open(options(directory));
  t.equal(filter.checkpoint, -1);
  t.equal(await checkpointOnDisk(directory), -1, 'the .chk says -1 on disk');
  t.equal((await readFile(join(directory, 'streamExistenceFilter.dat'))).length, SIZE);
  t.notOk(filter.mightExist('orders-1'));
  await filter.close();
});

t.test('added streams persist across a reopen at the checkpoint; unseen ones are mostly absent', async (t) => {
  const directory = t.testdir();
  const added = names('seen', 2000);
  const filter = await StreamExistenceFilter.open(options(directory));
  for (const name of added) filter.add(name);
  filter.commit(12_345);
  t.ok(added.every((name) => filter.mightExist(name)), 'every added stream might exist');
  await filter.close();

  const reopened = await StreamExistenceFilter.open(options(directory));
  t.equal(reopened.checkpoint, 12_345, 'the checkpoint survives');
  t.ok(added.every((name) => reopened.mightExist(name)), 'every added stream still might exist');
  const unseen = names('unseen', 2000).filter((name) => reopened.mightExist(name)).length;
  t.ok(unseen < 200, `${unseen} of 2000 unseen streams are false positives`);
  await reopened.close();
});

t.test('what was flushed survives a crash; the checkpoint never claims more than the file holds', async (t) => {
  const directory = t.testdir();
  const filter = await StreamExistenceFilter.open(options(directory));
  for (const name of names('early', 500)) filter.add(name);
  filter.commit(1000);
  await filter.flush();
  for (const name of names('late', 500)) filter.add(name);
  filter.commit(2000);

  // The first instance "crashes": another one reads what is on disk now.
  const survivor = await StreamExistenceFilter.open(options(directory));
  t.equal(survivor.checkpoint, 1000, 'the last flushed checkpoint');
  t.ok(names('early', 500).every((name) => survivor.mightExist(name)), 'everything below it is there');
  await survivor.close();
  await filter.close();
  t.equal(await checkpointOnDisk(directory), 2000, 'close persists the rest');
});

t.test('commits are persisted in the background after the delay', async (t) => {
  const directory = t.testdir();
  const filter = await StreamExistenceFilter.open(options(directory, { persistDelayMs: 1 }));
  filter.add('orders-7');
  filter.commit(700);
  await pollUntil('the background persist of checkpoint 700', () => filter.persistedCheckpoint === 700, { intervalMs: 5 });
  t.equal(await checkpointOnDisk(directory), 700);
  await filter.close();
});

t.test('a size change rebuilds the filter empty, with a warning', async (t) => {
  const directory = t.testdir();
  const filter = await StreamExistenceFilter.open(options(directory));
  for (const name of names('seen', 1000)) filter.add(name);
  filter.commit(5000);
  await filter.close();

  const logger = recordingLogger();
  const resized = await StreamExistenceFilter.open(options(directory, { sizeBytes: SIZE * 2, logger }));
  t.equal(resized.checkpoint, -1, 'the engine must re-add every stream');
  t.equal(logger.warnings.length, 1, 'the rebuild is logged');
  t.ok(names('seen', 1000).filter((name) => resized.mightExist(name)).length < 100, 'the old bits are gone');
  t.equal((await readFile(join(directory, 'streamExistenceFilter.dat'))).length, SIZE * 2);
  await resized.close();
});

t.test('a corrupt line is saturated; a corrupt header rebuilds', async (t) => {
  const directory = t.testdir();
  const added = names('seen', 1000);
  const filter = await StreamExistenceFilter.open(options(directory));
  for (const name of added) filter.add(name);
  filter.commit(3000);
  await filter.close();
  const path = join(directory, 'streamExistenceFilter.dat');
  const original = await readFile(path);

  const oneLine = Buffer.from(original);
  oneLine[64 * 10 + 5] = oneLine[64 * 10 + 5] ^ 0xff;
  await writeFile(path, oneLine);
  const logger = recordingLogger();
  const patched = await StreamExistenceFilter.open(options(directory, { logger }));
  t.equal(patched.checkpoint, 3000, 'one bad line does not cost the checkpoint');
  t.ok(added.every((name) => patched.mightExist(name)), 'no stream is lost');
  t.equal(logger.warnings.length, 1, 'the saturated line is logged');
  await patched.close();

  const header = Buffer.from(original);
  header[8] = header[8] ^ 0x01;
  await writeFile(path, header);
  const rebuilt = await StreamExistenceFilter.open(options(directory));
  t.equal(rebuilt.checkpoint, -1, 'a bad header starts over');
  t.equal(rebuilt.corruptionRebuildCount, 1, 'and counts the rebuild');
  await rebuilt.close();
});

t.test('moveCheckpointBack is durable at once and keeps the bits', async (t) => {
  const directory = t.testdir();
  const filter = await StreamExistenceFilter.open(options(directory));
  filter.add('kept');
  filter.commit(9000);
  await filter.flush();
  filter.moveCheckpointBack(4000);
  t.equal(filter.checkpoint, 4000);
  t.equal(await checkpointOnDisk(directory), 4000, 'on disk before any new record is added');
  t.ok(filter.mightExist('kept'), 'bits cannot be removed; a false positive is harmless');
  filter.moveCheckpointBack(6000);
  t.equal(filter.checkpoint, 4000, 'moving "back" to a later position changes nothing');
  await filter.close();
});

t.test('a failed persist is not swallowed', async (t) => {
  const directory = t.testdir();
  const logger = recordingLogger();
  const filter = await StreamExistenceFilter.open(options(directory, { logger }));
  filter.add('orders-1');
  filter.commit(100);
  // Fault injection: the directory disappears, so the checkpoint cannot be replaced.
  await rm(directory, { recursive: true });
  await t.rejects(filter.flush(), { code: Errors.storageIo.code });
  t.throws(() => filter.add('orders-2'), { code: Errors.storageIo.code }, 'later adds throw it');
  t.throws(() => filter.commit(200), { code: Errors.storageIo.code });
  t.equal(logger.errors.length, 1, 'it is logged once');
  await filter.close();
});
