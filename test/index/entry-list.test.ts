import t from 'tap';
import fc from 'fast-check';
import { EntryList, mergeEntryLists } from '../../src/storage/index/entry-list.js';
import { testSeed } from '../helpers/random.js';

const contents = (list: EntryList) => Array.from({ length: list.length }, (_, index) => [list.eventNumber(index), list.logPosition(index)]);
const sortedPairs = (pairs: Array<[number, number]>) => [...pairs].sort((a, b) => a[0] - b[0] || a[1] - b[1]);

function listOf(pairs: Array<[number, number]>): EntryList {
  const list = new EntryList(pairs[0][0], pairs[0][1]);
  for (const [eventNumber, logPosition] of pairs.slice(1)) list.add(eventNumber, logPosition);
  return list;
}

t.test('entries added in order across many blocks come back as added', async (t) => {
  const pairs = Array.from({ length: 20_000 }, (_, index): [number, number] => [index, 2 ** 40 + index * 230]);
  const list = listOf(pairs);
  t.equal(list.length, 20_000);
  t.same(contents(list), pairs, 'the first block grew, then four more blocks and part of a fifth');
  t.equal(list.lowerBound(-1), 0);
  t.equal(list.lowerBound(4096), 4096, 'the first entry of the second block');
  t.equal(list.lowerBound(12_345.5), 12_346);
  t.equal(list.lowerBound(20_000), 20_000);
});

t.test('entries added in any order are kept in (eventNumber, logPosition) order, across block boundaries too', async (t) => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat({ max: 300 }), fc.nat({ max: 1000 })), { minLength: 1, maxLength: 600 }), (pairs) => {
      const list = listOf(pairs);
      return JSON.stringify(contents(list)) === JSON.stringify(sortedPairs(pairs));
    }),
    { numRuns: 100, seed: testSeed(t) },
  );
  // Mostly in order, with late entries that land in earlier blocks and move every later one.
  const pairs: Array<[number, number]> = Array.from({ length: 9000 }, (_, index) => [index * 2, index]);
  for (const late of [1, 8191, 8193, 17_999, 4095]) pairs.push([late, 100_000 + late]);
  t.same(contents(listOf(pairs)), sortedPairs(pairs));
});

t.test('merging the lists of streams that share a hash orders all their entries', async (t) => {
  const a = listOf([[0, 10], [1, 30], [5, 90]]);
  const b = listOf([[0, 20], [1, 25], [2, 40]]);
  t.same(contents(mergeEntryLists([a, b])), [[0, 10], [0, 20], [1, 25], [1, 30], [2, 40], [5, 90]]);
  t.equal(mergeEntryLists([a]), a, 'a single list is its own merge');
});
