import t, { type Test } from 'tap';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Errors } from '../../src/common/errors.js';
import { silentLogger } from '../../src/common/logger.js';
import { BloomKey } from '../../src/storage/index/bloom-filter.js';
import { IndexFile } from '../../src/storage/index/index-file.js';
import { IndexFileWriter } from '../../src/storage/index/index-file-writer.js';
import { mergeIndexFiles } from '../../src/storage/index/merge.js';
import type { IndexEntry } from '../../src/storage/index/types.js';

type Entry = [high: number, low: number, eventNumber: number, logPosition: number];

function compare(a: Entry, b: Entry): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3];
}

/**
 * Streams of very different lengths (1 to 2000 entries), so that lookups start and end inside
 * and across midpoint intervals and across several positional reads. Hashes use the whole
 * unsigned range of both halves, positions go past 2^32.
 */
function makeEntries(streams: number, seed: number): Entry[] {
  const entries: Entry[] = [];
  let state = seed;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
  for (let stream = 0; stream < streams; stream++) {
    const high = stream % 3 === 0 ? 0xffffffff - stream : next();
    const low = next();
    const length = stream % 7 === 0 ? 2000 : 1 + (next() % 40);
    for (let eventNumber = 0; eventNumber < length; eventNumber++) {
      entries.push([high, low, eventNumber, 2 ** 33 + entries.length * 97]);
    }
  }
  return entries.sort(compare);
}

async function writeFileOf(directory: string, entries: Entry[], level = 0): Promise<IndexFile> {
  const distinct = new Set(entries.map((entry) => `${entry[0]}:${entry[1]}`)).size;
  const writer = await IndexFileWriter.create({ directory, level, entryCount: entries.length, distinctHashesMax: distinct, logger: silentLogger });
  for (const [high, low, eventNumber, logPosition] of entries) {
    if (writer.add(high, low, eventNumber, logPosition)) await writer.drain();
  }
  return writer.finish();
}

function expected(entries: Entry[], high: number, low: number, from: number, to: number): Array<[number, number]> {
  return entries.filter((e) => e[0] === high && e[1] === low && e[2] >= from && e[2] <= to).map((e) => [e[2], e[3]]);
}

function lookUp(file: IndexFile, high: number, low: number, from: number, to: number): Array<[number, number]> {
  const out: IndexEntry[] = [];
  file.appendRange(high, low, from, to, out);
  return out.map((entry) => [entry.eventNumber, entry.logPosition]);
}

function checkLookups(t: Test, file: IndexFile, entries: Entry[]): void {
  const hashes = [...new Map(entries.map((e) => [`${e[0]}:${e[1]}`, e])).values()];
  let mismatches = 0;
  for (const [high, low] of hashes) {
    const key = new BloomKey(high, low);
    if (!file.mightContain(high, low, key)) mismatches++;
    for (const [from, to] of [[0, 1e9], [0, 0], [5, 300], [129, 131], [1990, 5000], [7, 6]] as const) {
      if (JSON.stringify(lookUp(file, high, low, from, to)) !== JSON.stringify(expected(entries, high, low, from, to))) mismatches++;
    }
    const descending = [...file.descending(high, low, Infinity)].map((e) => [e.eventNumber, e.logPosition]);
    if (JSON.stringify(descending) !== JSON.stringify(expected(entries, high, low, 0, 1e9).reverse())) mismatches++;
    const below = [...file.descending(high, low, 150)].map((e) => [e.eventNumber, e.logPosition]);
    if (JSON.stringify(below) !== JSON.stringify(expected(entries, high, low, 0, 149).reverse())) mismatches++;
  }
  t.equal(mismatches, 0, `lookups of all ${hashes.length} hashes match`);
  t.same(lookUp(file, 0, 1, 0, 1e9), [], 'a hash below the file finds nothing');
  t.same([...file.descending(0xffffffff, 0xffffffff, Infinity)], [], 'a hash above the file finds nothing');
}

t.test('a written file answers range and descending lookups exactly, before and after reopening', async (t) => {
  const directory = t.testdir();
  const entries = makeEntries(60, 7);
  const written = await writeFileOf(directory, entries, 3);
  t.equal(written.entryCount, entries.length);
  checkLookups(t, written, entries);
  written.forceClose();

  const opened = await IndexFile.open(directory, written.id, { verify: true, logger: silentLogger });
  t.equal(opened.level, 3, 'the level is in the header');
  t.equal(opened.distinctHashes, 60, 'the distinct hash count is in the footer');
  checkLookups(t, opened, entries);
  opened.forceClose();
});

t.test('a merge of several files equals one file of all their entries', async (t) => {
  const directory = t.testdir();
  const parts = [makeEntries(20, 1), makeEntries(25, 2), makeEntries(3, 3)];
  const files = await Promise.all(parts.map((part) => writeFileOf(directory, part)));
  const merged = await mergeIndexFiles(files, directory, 1, silentLogger);
  const all = parts.flat().sort(compare);
  t.equal(merged.entryCount, all.length);
  checkLookups(t, merged, all);
  for (const file of [...files, merged]) file.forceClose();
});

t.test('a byte flipped anywhere in a file fails verification', async (t) => {
  const directory = t.testdir();
  const file = await writeFileOf(directory, makeEntries(10, 4));
  file.forceClose();
  const path = join(directory, file.id);
  const original = await readFile(path);
  for (const offset of [0, 130, original.length - 200, original.length - 100, original.length - 1]) {
    const bytes = Buffer.from(original);
    bytes[offset] = bytes[offset] ^ 0x10;
    await writeFile(path, bytes);
    await t.rejects(IndexFile.open(directory, file.id, { verify: true, logger: silentLogger }), { code: Errors.indexCorrupt.code }, `flip at ${offset}`);
  }
  await writeFile(path, original.subarray(0, original.length - 24));
  await t.rejects(IndexFile.open(directory, file.id, { verify: false, logger: silentLogger }), { code: Errors.indexCorrupt.code }, 'a truncated file fails even unverified');
});

t.test('a missing bloom filter only costs speed', async (t) => {
  const directory = t.testdir();
  const entries = makeEntries(10, 5);
  const file = await writeFileOf(directory, entries);
  file.forceClose();
  await writeFile(join(directory, `${file.id}.bloomfilter`), 'garbage');
  const warnings: object[] = [];
  const logger = { ...silentLogger, warn: (object: object) => void warnings.push(object) };
  const opened = await IndexFile.open(directory, file.id, { verify: true, logger });
  t.equal(warnings.length, 1, 'a warning names the unreadable filter');
  checkLookups(t, opened, entries);
  opened.forceClose();
});

t.test('the writer refuses entries out of order and a wrong count', async (t) => {
  const directory = t.testdir();
  const writer = await IndexFileWriter.create({ directory, level: 0, entryCount: 2, distinctHashesMax: 2, logger: silentLogger });
  writer.add(5, 5, 3, 100);
  t.throws(() => writer.add(5, 5, 2, 200), TypeError, 'a lower event number of the same hash');
  await t.rejects(writer.finish(), TypeError, 'fewer entries than announced');
  await writer.abort();
});
