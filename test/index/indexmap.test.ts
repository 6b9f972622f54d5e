import t from 'tap';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Errors } from '../../src/common/errors.js';
import { parseIndexMap, readIndexMap, serializeIndexMap, writeIndexMap, type IndexMap } from '../../src/storage/index/indexmap.js';

const map: IndexMap = {
  commitPosition: 123_456_789_012,
  maxAutoMergeLevel: 4,
  files: [
    { level: 3, commitPosition: 100_000, id: '0b4f6a52-7d0c-4a8e-9f53-3f2d1c0b9a87' },
    { level: 0, commitPosition: 123_456_789_012, id: 'c2a1e5d3-4b8e-4c1a-8f6e-8d4b0a737f9c' },
  ],
};

t.test('the map round-trips through its text form', async (t) => {
  const text = serializeIndexMap(map);
  const lines = text.split('\n');
  t.match(lines[0], /^[0-9A-F]{32}$/, 'line 1 is the checksum');
  t.same(lines.slice(1, 4), ['1', '123456789012', '4'], 'version, commit position, max auto-merge level');
  t.equal(lines[4], '3,100000,0b4f6a52-7d0c-4a8e-9f53-3f2d1c0b9a87');
  t.same(parseIndexMap(text, 'indexmap'), map);
  const unlimited = parseIndexMap(serializeIndexMap({ ...map, maxAutoMergeLevel: Infinity }), 'indexmap');
  t.equal(unlimited.maxAutoMergeLevel, Infinity, 'no limit survives as no limit');
});

t.test('any change to the text is caught by the checksum', async (t) => {
  const text = serializeIndexMap(map);
  for (const [what, changed] of [
    ['commit position', text.replace('123456789012\n4', '123456789013\n4')],
    ['a file level', text.replace('\n3,100000', '\n2,100000')],
    ['a dropped file line', text.slice(0, text.lastIndexOf('0,123456789012'))],
    ['the checksum itself', `0${text.slice(1)}`],
  ] as const) {
    t.throws(() => parseIndexMap(changed, '/x/indexmap'), { code: Errors.indexCorrupt.code, details: { file: '/x/indexmap' } }, what);
  }
});

t.test('a well-checksummed map with bad content is still refused', async (t) => {
  const withDuplicate = serializeIndexMap({ ...map, files: [map.files[0], map.files[0]] });
  t.throws(() => parseIndexMap(withDuplicate, 'indexmap'), { code: Errors.indexCorrupt.code }, 'a file listed twice');
  const badName = serializeIndexMap({ ...map, files: [{ level: 0, commitPosition: 1, id: '../../etc/passwd' }] });
  t.throws(() => parseIndexMap(badName, 'indexmap'), { code: Errors.indexCorrupt.code }, 'a file name that is not an index file');
});

t.test('read and write go through the directory; a missing map reads as none', async (t) => {
  const directory = t.testdir();
  t.equal(await readIndexMap(directory), undefined);
  await writeIndexMap(directory, map);
  t.same(await readIndexMap(directory), map);
  const path = join(directory, 'indexmap');
  const text = await readFile(path, 'latin1');
  await writeFile(path, text.replace('\n4\n', '\n5\n'));
  await t.rejects(readIndexMap(directory), { code: Errors.indexCorrupt.code, details: { file: path } });
});
