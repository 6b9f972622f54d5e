import t, { type Test } from 'tap';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Errors } from '../../src/common/errors.js';
import { silentLogger } from '../../src/common/logger.js';
import { TableIndex } from '../../src/storage/index/table-index.js';
import type { IndexEntry, StreamHasher, TableIndexOptions } from '../../src/storage/index/types.js';
import { defaultStreamHasher } from '../../src/storage/index/stream-hash.js';
import { testRandom, type TestRandom } from '../helpers/random.js';

/** One event record of a pretend log. */
interface LogRecord {
  streamName: string;
  eventNumber: number;
  logPosition: number;
  endPosition: number;
}

/** What the index must answer, kept the simple way: the log, and per stream its records. */
class IndexModel {
  readonly log: LogRecord[] = [];
  readonly streams = new Map<string, LogRecord[]>();
  private position = 0;

  append(streamName: string): LogRecord {
    const records = this.streams.get(streamName) ?? [];
    this.streams.set(streamName, records);
    // Records of varying size, so positions are not a multiple of anything.
    const size = 50 + ((this.log.length * 37) % 200);
    const record = { streamName, eventNumber: records.length, logPosition: this.position, endPosition: this.position + size };
    this.position += size;
    records.push(record);
    this.log.push(record);
    return record;
  }

  range(streamName: string, from: number, to: number): Array<[number, number]> {
    return (this.streams.get(streamName) ?? [])
      .filter((record) => record.eventNumber >= from && record.eventNumber <= to)
      .map((record) => [record.eventNumber, record.logPosition]);
  }
}

function pairs(entries: Iterable<IndexEntry>): Array<[number, number]> {
  return [...entries].map((entry) => [entry.eventNumber, entry.logPosition]);
}

function options(directory: string, extra: Partial<TableIndexOptions> = {}): TableIndexOptions {
  return { directory, memTableEntriesMax: 10, hasher: defaultStreamHasher, logger: silentLogger, ...extra };
}

/** Appends `count` events over `streamCount` streams to the model and the index, committing in small batches. */
function appendEvents(index: TableIndex, model: IndexModel, count: number, streamCount: number, random: TestRandom): void {
  let written = 0;
  while (written < count) {
    const batch = Math.min(count - written, 1 + (random.word() % 5));
    let end = 0;
    for (let i = 0; i < batch; i++) {
      const record = model.append(`stream-${random.word() % streamCount}`);
      index.add(record.streamName, record.eventNumber, record.logPosition);
      end = record.endPosition;
    }
    index.commit(end);
    written += batch;
  }
}

/** What the engine does at start: re-add every record from the index's commit position. */
function catchUp(index: TableIndex, model: IndexModel): number {
  let added = 0;
  let end = index.commitPosition;
  for (const record of model.log) {
    if (record.logPosition < index.commitPosition) continue;
    index.add(record.streamName, record.eventNumber, record.logPosition);
    end = record.endPosition;
    added++;
  }
  index.commit(end);
  return added;
}

/** Checks range() and descending() of every stream against the model, with some sub-ranges. */
function checkAgainstModel(t: Test, index: TableIndex, model: IndexModel, random: TestRandom): void {
  let mismatches = 0;
  for (const [streamName, records] of model.streams) {
    const last = records.length - 1;
    const whole = index.range(streamName, 0, last + 10);
    if (JSON.stringify(pairs(whole)) !== JSON.stringify(model.range(streamName, 0, last))) mismatches++;
    const from = random.word() % (last + 1);
    const to = from + (random.word() % 25);
    if (JSON.stringify(pairs(index.range(streamName, from, to))) !== JSON.stringify(model.range(streamName, from, to))) mismatches++;
    const descending = pairs(index.descending(streamName));
    if (JSON.stringify(descending) !== JSON.stringify(model.range(streamName, 0, last).reverse())) mismatches++;
    const before = random.word() % (last + 2);
    const below = pairs(index.descending(streamName, before));
    if (JSON.stringify(below) !== JSON.stringify(model.range(streamName, 0, before - 1).reverse())) mismatches++;
  }
  t.equal(mismatches, 0, `range and descending match the model for all ${model.streams.size} streams`);
  t.same(index.range('no-such-stream', 0, 100), [], 'an unknown stream has no entries');
  t.same([...index.descending('no-such-stream')], []);
}

t.test('thousands of entries across many levels, then a reopen', async (t) => {
  const random = testRandom(t);
  const directory = t.testdir();
  const model = new IndexModel();
  let index = await TableIndex.open(options(directory));
  appendEvents(index, model, 4000, 60, random);
  // Lookups while flushes and merges are still running in the background.
  checkAgainstModel(t, index, model, random);
  await index.waitForBackgroundWork();

  const stats = index.stats();
  const levels = stats.files.map((file) => file.level);
  t.ok(Math.max(...levels) >= 5, `files reach level ${Math.max(...levels)}`);
  t.equal(new Set(levels).size, levels.length, 'after the merges no level holds two files');
  const fileEntries = stats.files.reduce((sum, file) => sum + file.entries, 0);
  t.equal(fileEntries + stats.memTableEntries, 4000, 'every entry is in a file or a memory table');
  t.ok(stats.commitPosition > 0 && stats.commitPosition <= model.log[model.log.length - 1].endPosition);
  t.ok(model.log.some((record) => record.endPosition === stats.commitPosition), 'the commit position is a commit boundary');
  checkAgainstModel(t, index, model, random);
  const fromFiles = index.range('stream-1', 0, 1_000_000);
  t.ok(fromFiles.some((entry) => !entry.exact), 'entries from files are not exact');

  await index.close();
  t.throws(() => index.range('stream-1', 0, 1), { code: Errors.storageClosed.code }, 'a closed index refuses lookups');

  index = await TableIndex.open(options(directory));
  t.equal(index.commitPosition, stats.commitPosition, 'the commit position survives the reopen');
  t.same(index.stats().files, stats.files, 'the same files at the same levels');
  const added = catchUp(index, model);
  t.ok(added < 4000, `only the ${added} records above the commit position are re-added`);
  checkAgainstModel(t, index, model, random);
  appendEvents(index, model, 500, 60, random);
  await index.waitForBackgroundWork();
  checkAgainstModel(t, index, model, random);
  await index.close();
});

t.test('maxAutoMergeLevel caps automatic merges', async (t) => {
  const random = testRandom(t);
  const index = await TableIndex.open(options(t.testdir(), { maxAutoMergeLevel: 1 }));
  const model = new IndexModel();
  appendEvents(index, model, 1000, 20, random);
  await index.waitForBackgroundWork();
  const levels = index.stats().files.map((file) => file.level);
  t.ok(levels.every((level) => level <= 1), 'no file above level 1');
  t.ok(levels.filter((level) => level === 1).length > 2, 'level 1 files accumulate');
  checkAgainstModel(t, index, model, random);
  await index.close();
});

t.test('mergeAll leaves one file with the same answers and deletes the old files', async (t) => {
  const random = testRandom(t);
  const directory = t.testdir();
  const index = await TableIndex.open(options(directory));
  const model = new IndexModel();
  appendEvents(index, model, 3000, 40, random);
  await index.waitForBackgroundWork();
  t.ok(index.stats().files.length > 1, 'several files before');
  const before = new Map([...model.streams.keys()].map((name) => [name, pairs(index.range(name, 0, 10_000))]));

  await index.mergeAll();
  const files = index.stats().files;
  t.equal(files.length, 1, 'one file after');
  const after = new Map([...model.streams.keys()].map((name) => [name, pairs(index.range(name, 0, 10_000))]));
  t.same(after, before, 'identical lookup results');
  checkAgainstModel(t, index, model, random);

  const names = (await readdir(directory)).sort();
  t.same(names, [files[0].name, `${files[0].name}.bloomfilter`, 'indexmap'].sort(), 'only the merged file, its filter and the map remain');
  const map = await readFile(join(directory, 'indexmap'), 'latin1');
  t.match(map, `,${files[0].name}\n`, 'the map lists the merged file');
  await index.close();
});

t.test('a descending lookup in progress survives a merge that retires its files', async (t) => {
  const directory = t.testdir();
  const index = await TableIndex.open(options(directory, { memTableEntriesMax: 4 }));
  const model = new IndexModel();
  for (let i = 0; i < 40; i++) {
    const record = model.append('only');
    index.add(record.streamName, record.eventNumber, record.logPosition);
    index.commit(record.endPosition);
  }
  await index.waitForBackgroundWork();
  const oldFiles = index.stats().files.map((file) => file.name);
  t.ok(oldFiles.length > 1);

  const iterator = index.descending('only')[Symbol.iterator]();
  const seen = [iterator.next().value as IndexEntry];
  await index.mergeAll();
  await index.waitForBackgroundWork();
  t.equal(index.stats().files.length, 1, 'the merge is done');
  const during = await readdir(directory);
  t.ok(oldFiles.every((name) => during.includes(name)), 'files still being read are not deleted yet');
  for (let next = iterator.next(); !next.done; next = iterator.next()) seen.push(next.value);
  t.same(pairs(seen), model.range('only', 0, 39).reverse(), 'the iteration completes with every entry');
  await index.waitForBackgroundWork();

  const remaining = await readdir(directory);
  t.notOk(oldFiles.some((name) => remaining.includes(name)), 'the merged-away files are deleted once released');
  await index.close();
});

t.test('a hash collision: files answer by hash (not exact), memory tables by name', async (t) => {
  const collide = 0x1234_5678_9abc_def0n;
  const hasher: StreamHasher = (name) => (name === 'left' || name === 'right' ? collide : defaultStreamHasher(name));
  const index = await TableIndex.open(options(t.testdir(), { hasher }));
  const model = new IndexModel();
  for (let i = 0; i < 95; i++) {
    const record = model.append(i % 3 === 0 ? 'right' : i % 3 === 1 ? 'left' : 'other');
    index.add(record.streamName, record.eventNumber, record.logPosition);
    index.commit(record.endPosition);
  }
  await index.waitForBackgroundWork();
  t.ok(index.stats().memTableEntries > 0, 'some entries are still in the memory table');

  const entries = index.range('left', 0, 1000);
  const positionsOf = (name: string) => new Set(model.streams.get(name)!.map((record) => record.logPosition));
  const left = positionsOf('left');
  const right = positionsOf('right');
  t.ok(entries.filter((entry) => entry.exact).every((entry) => left.has(entry.logPosition)), 'exact entries are all the stream asked for');
  const fromFiles = entries.filter((entry) => !entry.exact);
  t.ok(fromFiles.some((entry) => right.has(entry.logPosition)), 'the colliding stream shows up from files');
  t.notOk(entries.some((entry) => entry.exact && right.has(entry.logPosition)), 'never as exact');
  t.notOk(entries.some((entry) => positionsOf('other').has(entry.logPosition)), 'other streams do not');
  // What the caller does: keep exact entries and file entries whose record is the stream's.
  const confirmed = entries.filter((entry) => entry.exact || left.has(entry.logPosition));
  t.same(pairs(confirmed), model.range('left', 0, 1000), 'after confirming, exactly the stream');
  const lastConfirmed = [...index.descending('left')].find((entry) => entry.exact || left.has(entry.logPosition));
  t.equal(lastConfirmed?.eventNumber, model.streams.get('left')!.length - 1, 'descending finds the last event past collisions');
  await index.close();
});

t.test('a tampered indexmap is reported as index corruption', async (t) => {
  const random = testRandom(t);
  const directory = t.testdir();
  const index = await TableIndex.open(options(directory));
  appendEvents(index, new IndexModel(), 100, 5, random);
  await index.waitForBackgroundWork();
  await index.close();
  const path = join(directory, 'indexmap');
  const text = await readFile(path, 'latin1');
  const lines = text.split('\n');
  lines[2] = String(Number(lines[2]) + 1);
  await writeFile(path, lines.join('\n'));
  await t.rejects(TableIndex.open(options(directory)), { code: Errors.indexCorrupt.code, details: { file: path } });
});

t.test('an index file with a flipped byte is refused at open unless verification is skipped', async (t) => {
  const random = testRandom(t);
  const directory = t.testdir();
  const index = await TableIndex.open(options(directory));
  appendEvents(index, new IndexModel(), 100, 5, random);
  await index.waitForBackgroundWork();
  const name = index.stats().files[0].name;
  await index.close();
  const path = join(directory, name);
  const bytes = await readFile(path);
  bytes[128 + 24 * 3 + 10] = bytes[128 + 24 * 3 + 10] ^ 0x01;
  await writeFile(path, bytes);
  await t.rejects(TableIndex.open(options(directory)), { code: Errors.indexCorrupt.code, details: { file: path } });
  const unverified = await TableIndex.open(options(directory, { skipIndexVerify: true }));
  t.ok(unverified.stats().files.length > 0, 'with skipIndexVerify the structure check alone passes');
  await unverified.close();
});

t.test('files the map does not reference are removed at open; foreign files stay', async (t) => {
  const random = testRandom(t);
  const directory = t.testdir({ 'notes.txt': 'not ours' });
  const index = await TableIndex.open(options(directory));
  appendEvents(index, new IndexModel(), 50, 5, random);
  await index.waitForBackgroundWork();
  const kept = index.stats().files.map((file) => file.name);
  await index.close();
  const orphan = '0b4f6a52-7d0c-4a8e-9f53-3f2d1c0b9a87';
  for (const name of [orphan, `${orphan}.bloomfilter`, `${orphan}.tmp`, 'indexmap.5e1c.tmp']) await writeFile(join(directory, name), 'x');

  const reopened = await TableIndex.open(options(directory));
  const names = await readdir(directory);
  t.notOk(names.some((name) => name.startsWith(orphan) || name.endsWith('.tmp')), 'orphans and temp files are gone');
  t.ok(names.includes('notes.txt'), 'a file that is not ours stays');
  t.ok(kept.every((name) => names.includes(name) && names.includes(`${name}.bloomfilter`)), 'referenced files stay');
  await reopened.close();
});

t.test('clear drops every file and memory table and persists an empty map', async (t) => {
  const random = testRandom(t);
  const directory = t.testdir();
  const index = await TableIndex.open(options(directory));
  appendEvents(index, new IndexModel(), 300, 10, random);
  await index.clear();
  t.equal(index.commitPosition, 0);
  t.same(index.stats().files, []);
  t.equal(index.stats().memTableEntries, 0);
  t.same(index.range('stream-1', 0, 1000), []);
  await index.waitForBackgroundWork();
  t.same((await readdir(directory)).sort(), ['indexmap'], 'only the map is left');
  await index.close();
  const reopened = await TableIndex.open(options(directory));
  t.equal(reopened.commitPosition, 0, 'the empty map is durable');
  await reopened.close();
});

t.test('a failed background flush is not swallowed: later calls throw it', async (t) => {
  const random = testRandom(t);
  const directory = t.testdir();
  const errors: object[] = [];
  const logger = { ...silentLogger, error: (object: object) => void errors.push(object), child: () => logger };
  const index = await TableIndex.open(options(directory, { logger }));
  // Fault injection: the directory disappears, so writing the level-0 file fails.
  await rm(directory, { recursive: true });
  appendEvents(index, new IndexModel(), 12, 3, random);
  await t.rejects(index.waitForBackgroundWork(), { code: Errors.storageIo.code });
  t.throws(() => index.add('stream-1', 99, 99_999), { code: Errors.storageIo.code }, 'add throws the failure');
  t.throws(() => index.commit(100_000), { code: Errors.storageIo.code }, 'commit throws it');
  t.throws(() => index.range('stream-1', 0, 10), { code: Errors.storageIo.code }, 'lookups throw it');
  t.equal(errors.length, 1, 'the failure is logged once');
  await index.close();
});
