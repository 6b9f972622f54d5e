import t from 'tap';
import { BloomFilter, BloomKey, BLOOM_LINE_BYTES } from '../src/storage/index/bloom-filter.js';
import { Errors } from '../src/common/errors.js';
import { testRandom, type TestRandom } from './helpers/random.js';

function keys(count: number, random: TestRandom): BloomKey[] {
  return Array.from({ length: count }, () => new BloomKey(random.word(), random.word()));
}

t.test('no false negatives over 100k hashes and a false-positive rate near the 2% target', async (t) => {
  const random = testRandom(t);
  const items = 100_000;
  const filter = BloomFilter.create(BloomFilter.sizeForItems(items));
  const added = keys(items, random);
  for (const key of added) filter.add(key);
  let falseNegatives = 0;
  for (const key of added) if (!filter.mightContain(key)) falseNegatives++;
  t.equal(falseNegatives, 0, 'every added hash is reported as maybe present');

  const probes = keys(100_000, random);
  let falsePositives = 0;
  for (const key of probes) if (filter.mightContain(key)) falsePositives++;
  const rate = falsePositives / probes.length;
  t.ok(rate > 0.005 && rate < 0.05, `false-positive rate ${(rate * 100).toFixed(2)}% is within 0.5%..5%`);
});

t.test('hashes that differ only in one half probe different bits', async (t) => {
  // Guards against a probe derivation that ignores the high or the low half.
  const filter = BloomFilter.create(BloomFilter.sizeForItems(1000));
  for (let low = 0; low < 1000; low++) filter.add(new BloomKey(7, low));
  let hitsOnOtherHigh = 0;
  for (let low = 0; low < 1000; low++) if (filter.mightContain(new BloomKey(8, low))) hitsOnOtherHigh++;
  t.ok(hitsOnOtherHigh < 100, `${hitsOnOtherHigh} of 1000 hashes with another high half look present`);
});

t.test('serialize and load round-trip the bits and the header', async (t) => {
  const random = testRandom(t);
  const filter = BloomFilter.create(10_000, { corruptionRebuildCount: 3 });
  const added = keys(500, random);
  for (const key of added) filter.add(key);
  const { filter: loaded, corruptLines } = BloomFilter.load(Buffer.from(filter.serialize()), 'test');
  t.equal(corruptLines, 0);
  t.equal(loaded.numBits, filter.numBits);
  t.equal(loaded.sizeBytes, Math.floor(10_000 / BLOOM_LINE_BYTES) * BLOOM_LINE_BYTES);
  t.equal(loaded.corruptionRebuildCount, 3);
  t.ok(added.every((key) => loaded.mightContain(key)), 'every added hash survives the round trip');
  const others = keys(2000, random);
  t.same(others.map((key) => loaded.mightContain(key)), others.map((key) => filter.mightContain(key)), 'same answers for unseen hashes');
});

t.test('a corrupt line is detected on load and saturated', async (t) => {
  const random = testRandom(t);
  const filter = BloomFilter.create(4096);
  const added = keys(200, random);
  for (const key of added) filter.add(key);
  const bytes = Buffer.from(filter.serialize());
  const line = 9;
  const offset = line * BLOOM_LINE_BYTES + 17;
  bytes[offset] = bytes[offset] ^ 0x40;

  const { filter: loaded, corruptLines } = BloomFilter.load(bytes, 'test');
  t.equal(corruptLines, 1, 'exactly the damaged line is reported');
  t.ok(added.every((key) => loaded.mightContain(key)), 'no added hash is lost');
  const reserialized = loaded.serialize();
  t.ok(reserialized.subarray(line * BLOOM_LINE_BYTES, line * BLOOM_LINE_BYTES + 60).every((byte) => byte === 0xff), 'the line is all ones');
  t.equal(BloomFilter.load(Buffer.from(reserialized), 'test').corruptLines, 0, 'the saturated line carries a valid checksum');
});

t.test('a damaged header or a wrong size is reported as index corruption', async (t) => {
  const bytes = Buffer.from(BloomFilter.create(1024).serialize());
  const header = Buffer.from(bytes);
  header[8] = header[8] ^ 1;
  t.throws(() => BloomFilter.load(header, 'f.bloomfilter'), { code: Errors.indexCorrupt.code });
  t.throws(() => BloomFilter.load(bytes.subarray(0, 1000), 'f.bloomfilter'), { code: Errors.indexCorrupt.code });
  t.throws(() => BloomFilter.load(Buffer.concat([bytes, Buffer.alloc(64)]), 'f.bloomfilter'), { code: Errors.indexCorrupt.code });
});

t.test('a zero-filled file with a valid header is a valid empty filter', async (t) => {
  // The existence filter creates its file sparse; zero lines must pass their checksum.
  const header = BloomFilter.create(64 * 100).serialize().subarray(0, BLOOM_LINE_BYTES);
  const bytes = Buffer.concat([header, Buffer.alloc(64 * 99)]);
  const { filter, corruptLines } = BloomFilter.load(bytes, 'sparse');
  t.equal(corruptLines, 0);
  t.notOk(filter.mightContain(new BloomKey(1, 2)));
});

t.test('dirty ranges carry exactly the changed pages, with checksums', async (t) => {
  const random = testRandom(t);
  const filter = BloomFilter.create(64 * 1024, { trackDirty: true });
  const disk = Buffer.from(filter.serialize());
  t.same(filter.takeDirtyRuns(), [], 'nothing dirty after a full serialize');

  const added = keys(300, random);
  for (const key of added) filter.add(key);
  const runs = filter.takeDirtyRuns(3);
  t.ok(runs.length > 0);
  t.ok(runs.every((run) => run.pageCount <= 3), 'runs respect the page limit');
  for (const run of runs) {
    const range = filter.copyPages(run);
    t.equal(range.offset, run.firstPage * 4096);
    range.bytes.copy(disk, range.offset);
  }
  const { filter: loaded, corruptLines } = BloomFilter.load(disk, 'test');
  t.equal(corruptLines, 0, 'pages written back carry valid checksums');
  t.ok(added.every((key) => loaded.mightContain(key)));
  t.same(filter.takeDirtyRuns(), [], 'taken pages are forgotten');
  t.equal(filter.add(added[0]), false, 'adding a present hash changes nothing');
  t.same(filter.takeDirtyRuns(), []);
});
