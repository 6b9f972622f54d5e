import t from 'tap';
import fc from 'fast-check';
import { MemTable } from '../../src/storage/index/memtable.js';
import type { IndexEntry } from '../../src/storage/index/types.js';
import { hashPartsFunction, defaultStreamHasher, type HashParts } from '../../src/storage/index/stream-hash.js';
import { testSeed } from '../helpers/random.js';

const pairs = (entries: Iterable<IndexEntry>) => [...entries].map((entry) => [entry.eventNumber, entry.logPosition]);

t.test('entries come back in (eventNumber, logPosition) order even when added out of order', async (t) => {
  const table = new MemTable(hashPartsFunction(defaultStreamHasher));
  for (const [eventNumber, logPosition] of [[0, 10], [2, 30], [1, 20], [1, 15], [5, 50], [2, 25], [2, 35]] as const) {
    table.add('orders', eventNumber, logPosition);
  }
  const id = table.find('orders');
  const out: IndexEntry[] = [];
  table.appendRange(id, 0, 10, out);
  t.same(pairs(out), [[0, 10], [1, 15], [1, 20], [2, 25], [2, 30], [2, 35], [5, 50]]);
  t.ok(out.every((entry) => entry.exact), 'found by name, so exact');
  const middle: IndexEntry[] = [];
  table.appendRange(id, 2, 4, middle);
  t.same(pairs(middle), [[2, 25], [2, 30], [2, 35]]);
  t.same(pairs(table.descending(id, 2)), [[1, 20], [1, 15], [0, 10]], 'descending below 2, exclusive');
  t.equal(table.entryCount, 7);
  t.equal(table.find('other'), -1);
});

t.test('a stream with a single entry answers range and descending', async (t) => {
  const table = new MemTable(hashPartsFunction(defaultStreamHasher));
  table.add('single', 3, 300);
  const id = table.find('single');
  const inside: IndexEntry[] = [];
  const outside: IndexEntry[] = [];
  table.appendRange(id, 0, 3, inside);
  table.appendRange(id, 4, 9, outside);
  t.same(pairs(inside), [[3, 300]]);
  t.same(outside, []);
  t.same(pairs(table.descending(id, Infinity)), [[3, 300]]);
  t.same(pairs(table.descending(id, 3)), []);
  t.ok(table.hasSingleEntry(id));
});

t.test('a frozen table refuses adds', async (t) => {
  const table = new MemTable(hashPartsFunction(defaultStreamHasher));
  table.add('a', 0, 0);
  table.freeze();
  t.throws(() => table.add('a', 1, 1), TypeError);
});

t.test('the radix sort orders streams by unsigned (high, low) like a comparison sort', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(fc.nat({ max: 0xffffffff }), fc.nat({ max: 0xffffffff })), { maxLength: 3000 }), async (hashes) => {
      // A hasher that returns the generated hash of each stream, including duplicates (collisions).
      const byName = new Map(hashes.map((hash, index) => [`s${index}`, hash]));
      const table = new MemTable((name: string, out: HashParts) => {
        [out.high, out.low] = byName.get(name)!;
      });
      for (const name of byName.keys()) table.add(name, 0, 0);
      const sorted = [...(await table.sortedStreamIds())].map((id) => [table.hashHigh(id), table.hashLow(id)]);
      const expected = [...hashes].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      return JSON.stringify(sorted) === JSON.stringify(expected);
    }),
    { numRuns: 50, seed: testSeed(t) },
  );
  // Enough streams to take the path that yields between passes.
  const table = new MemTable(hashPartsFunction(defaultStreamHasher));
  for (let index = 0; index < 60_000; index++) table.add(`stream-${index}`, 0, index);
  const ids = await table.sortedStreamIds();
  let ordered = true;
  for (let index = 1; index < ids.length; index++) {
    const a = ids[index - 1];
    const b = ids[index];
    if ((table.hashHigh(a) - table.hashHigh(b) || table.hashLow(a) - table.hashLow(b)) > 0) ordered = false;
  }
  t.ok(ordered, '60,000 streams in hash order');
  t.equal(new Set(ids).size, 60_000, 'every stream exactly once');
});
