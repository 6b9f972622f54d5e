// The hole-keeping copy gives back exactly the bytes it was given, whatever pieces they come in,
// and leaves whole zero blocks out of the disk.
import { randomFillSync } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { copySparse, SparseWriter } from '../../src/maint/backup/sparse-copy.js';

const BLOCK = 4096;

/** 64 blocks and a tail: data, zero blocks, a block zero but for its last byte, and a zero tail. */
function sample(): Buffer {
  const bytes = Buffer.alloc(64 * BLOCK + 100);
  for (let block = 0; block < 64; block += 4) randomFillSync(bytes, block * BLOCK, BLOCK);
  bytes[6 * BLOCK - 1] = 7;
  return bytes;
}

t.test('a stream written in odd pieces reads back byte for byte, with its zero blocks as holes', async (t) => {
  const bytes = sample();
  const path = join(t.testdir(), 'copy');
  const output = await open(path, 'w');
  const writer = new SparseWriter(output, path);
  for (let offset = 0, piece = 1; offset < bytes.length; offset += piece, piece = (piece * 7 + 3) % 9000 + 1) {
    await writer.write(bytes.subarray(offset, Math.min(offset + piece, bytes.length)));
  }
  t.equal(await writer.end(), bytes.length);
  await output.close();
  t.same(readFileSync(path), bytes, 'the same bytes');
  t.ok(statSync(path).blocks * 512 < bytes.length / 2, `${statSync(path).blocks * 512} bytes on disk for ${bytes.length}`);
});

t.test('a file copied in part is given its full length and the same bytes', async (t) => {
  const directory = t.testdir();
  const bytes = sample();
  writeFileSync(join(directory, 'source'), bytes);
  const source = await open(join(directory, 'source'), 'r');
  const target = join(directory, 'target');
  const output = await open(target, 'w');
  const copy = await copySparse(source, output, 10 * BLOCK + 5, 80 * BLOCK, target, (position) => new Error(`short at ${position}`));
  await output.close();
  t.same(copy, { bytesRead: 10 * BLOCK + 5, bytesWritten: 4 * BLOCK + 5 }, 'four blocks with data, and the piece of a block at the end');
  const expected = Buffer.alloc(80 * BLOCK);
  bytes.copy(expected, 0, 0, 10 * BLOCK + 5);
  t.same(readFileSync(target), expected);
  const shortOutput = await open(join(directory, 'short'), 'w');
  await t.rejects(copySparse(source, shortOutput, 100 * BLOCK, 100 * BLOCK, 'short', (position) => new Error(`short at ${position}`)), { message: `short at ${64 * BLOCK + 100}` });
  await shortOutput.close();
  await source.close();
});
