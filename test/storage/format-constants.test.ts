// Format constants live with their format: a record's frame and offsets, a chunk's header, footer
// and hash, a checkpoint's size, an index file's layout are declared once, in the file of their
// format, and imported where used. A second `const HASH_BYTES = 16` elsewhere drifts the day the
// format changes.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import {
  CHUNK_FOOTER_BYTES, CHUNK_HASH_BYTES, FOOTER_HASHED_BYTES, decodeChunkFooter, encodeChunkFooter, setFooterHash,
} from '../../src/storage/log/chunk-format.js';

const source = fileURLToPath(new URL('../../src', import.meta.url));

/** The files that own a format, and so its sizes and offsets. */
const FORMAT_FILES = [
  'storage/log/record.ts', 'storage/log/chunk-format.ts', 'storage/log/checkpoint.ts', 'storage/log/position-map.ts',
  'storage/log/uuid.ts', 'storage/index/index-file-format.ts', 'storage/index/bloom-filter.ts',
];

/** Words that say which part of a format a constant sizes or locates, not which format. */
const GENERIC_WORDS = new Set(['BYTES', 'OFFSET', 'CHUNK', 'RECORD', 'FILE', 'INDEX']);

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface SizeConstant {
  file: string;
  name: string;
  value: number;
  words: string[];
}

/** Constants named `…_BYTES` or `…_OFFSET` whose value is a sum or product of plain numbers. */
function sizeConstants(file: string): SizeConstant[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/\bconst ([A-Z][A-Z0-9_]*_(?:BYTES|OFFSET)) = ([\d_ +*]+);/g)].map(([, name, expression]) => ({
    file: relative(source, file),
    name,
    value: expression.split('+').reduce((sum, term) => sum + term.split('*').reduce((product, factor) => product * Number(factor.trim().replaceAll('_', '')), 1), 0),
    words: name.split('_').filter((word) => !GENERIC_WORDS.has(word)),
  }));
}

t.test('no file repeats a size or offset of a format that another file owns', async (t) => {
  const constants = filesUnder(source).flatMap(sizeConstants);
  const owned = constants.filter((constant) => FORMAT_FILES.includes(constant.file));
  t.ok(owned.some((constant) => constant.name === 'CHUNK_HASH_BYTES'), 'the chunk format declares its hash size');
  const copies = constants
    .filter((constant) => !FORMAT_FILES.includes(constant.file))
    .flatMap((copy) => owned
      .filter((owner) => owner.value === copy.value && owner.words.some((word) => copy.words.includes(word)))
      .map((owner) => `${copy.file}: ${copy.name} = ${copy.value} repeats ${owner.file}: ${owner.name}`));
  t.same(copies, [], 'each format size is declared once, in its format file');
});

t.test("the chunk hash is the footer's last bytes, the file's last bytes", async (t) => {
  const hash = Buffer.alloc(CHUNK_HASH_BYTES, 0xab);
  const footer = encodeChunkFooter({ isCompleted: true, physicalDataSize: 10, logicalDataSize: 10, mapSize: 0 });
  setFooterHash(footer, hash);
  t.equal(footer.length, CHUNK_FOOTER_BYTES);
  t.equal(FOOTER_HASHED_BYTES + CHUNK_HASH_BYTES, CHUNK_FOOTER_BYTES, 'the hash ends the footer');
  t.same(footer.subarray(CHUNK_FOOTER_BYTES - CHUNK_HASH_BYTES), hash);
  t.same(decodeChunkFooter(footer).hash, hash);
});
