import t from 'tap';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Errors } from '../../src/common/errors.js';
import { Checkpoint } from '../../src/storage/log/checkpoint.js';
import { CheckpointName } from '../../src/storage/layout.js';
import {
  CHUNK_HEADER_BYTES, chunkFileName, completedFileBytes, decodeChunkFooter, decodeChunkHeader, encodeChunkFooter,
  encodeChunkHeader, newChunkHeader, ongoingFileBytes, parseChunkFileName, setFooterHash,
} from '../../src/storage/log/chunk-format.js';
import { Chunk } from '../../src/storage/log/chunk.js';
import { stopHashingThread } from '../../src/common/md5-thread.js';
import { encodeSystemRecord } from '../../src/storage/log/record.js';
import { descriptorsUnder, tempDirectory } from '../helpers/engine.js';

t.test('chunk header round-trips and foreign files are refused', async (t) => {
  const header = { ...newChunkHeader(1 << 20, 42), endNumber: 45, isScavenged: true };
  const bytes = encodeChunkHeader(header);
  t.equal(bytes.length, CHUNK_HEADER_BYTES);
  t.same(decodeChunkHeader(bytes), header);
  const foreign = Buffer.from(bytes);
  foreign.write('NOTACHNK', 36, 'latin1');
  t.equal(decodeChunkHeader(foreign), 'not a chunk file');
  const future = Buffer.from(bytes);
  future[1] = 99;
  t.match(decodeChunkHeader(future), /unsupported chunk format version 99/);
  t.equal(decodeChunkHeader(Buffer.alloc(10)), 'file shorter than a chunk header');
});

t.test('chunk footer round-trips with its hash', async (t) => {
  const footer = encodeChunkFooter({ isCompleted: true, physicalDataSize: 123_456, logicalDataSize: 2 ** 33, mapSize: 24 });
  const hash = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
  setFooterHash(footer, hash);
  t.same(decodeChunkFooter(footer), { isCompleted: true, physicalDataSize: 123_456, logicalDataSize: 2 ** 33, mapSize: 24, hash });
  t.equal(decodeChunkFooter(Buffer.alloc(128)).isCompleted, false, 'an all-zero footer is an ongoing chunk');
});

t.test('chunk file names and sizes', async (t) => {
  t.equal(chunkFileName(7, 2), 'chunk-000007.000002');
  t.same(parseChunkFileName('chunk-000123.000004'), { chunkNumber: 123, version: 4 });
  t.equal(parseChunkFileName('chunk-000123.000004.tmp'), undefined);
  t.equal(parseChunkFileName('chunk-12.000004'), undefined);
  t.equal(ongoingFileBytes(256 * 1024 * 1024), 268_439_552, '256 MiB chunk preallocates header + data + footer, 4 KiB aligned');
  t.equal(completedFileBytes(0) % 4096, 0);
});

t.test('a chunk completed on disk reopens completed with a valid hash; a flipped bit breaks it', async (t) => {
  const directory = tempDirectory(t);
  const chunk = await Chunk.create(directory, 0, 64 * 1024);
  const record = encodeSystemRecord(0, 1, 1, Buffer.from('{"x":1}'));
  await chunk.append(record);
  await chunk.append(record);
  await chunk.complete();
  await chunk.close();
  t.same(readdirSync(directory), ['chunk-000000.000000'], 'no temp file left');
  const path = join(directory, 'chunk-000000.000000');
  t.equal(readFileSync(path).length, completedFileBytes(record.length * 2), 'cut to its completed size');
  const reopened = await Chunk.open(path, 64 * 1024);
  t.equal(reopened.isCompleted, true);
  t.equal(reopened.dataSize, record.length * 2);
  t.equal(await reopened.verifyHash(), true);
  t.equal(reopened.frameAt(record.length, reopened.dataSize).framedLength, record.length);
  await reopened.close();
  const bytes = readFileSync(path);
  bytes[CHUNK_HEADER_BYTES + 20] ^= 0x01;
  writeFileSync(path, bytes);
  const corrupt = await Chunk.open(path, 64 * 1024);
  t.equal(await corrupt.verifyHash(), false);
  t.throws(() => corrupt.frameAt(0, corrupt.dataSize), { code: Errors.storageChecksum.code });
  await corrupt.close();
  await t.rejects(Chunk.open(path, 128 * 1024), { code: Errors.storageCorrupt.code }, 'a chunk size that differs from the configured one');
});

t.test('the running hash is kept off the main thread; a chunk still completes with the right hash when that thread dies', async (t) => {
  const directory = tempDirectory(t);
  const record = encodeSystemRecord(0, 1, 1, Buffer.from('{"x":1}'));
  for (const [number, stopAfter] of [[0, -1], [1, 0], [2, 3]]) {
    const chunk = await Chunk.create(directory, number, 64 * 1024);
    for (let i = 0; i < 6; i++) {
      if (i === stopAfter) await stopHashingThread();
      await chunk.append(record);
    }
    await chunk.complete();
    await chunk.close();
    const reopened = await Chunk.open(join(directory, chunkFileName(number, 0)), 64 * 1024);
    t.equal(await reopened.verifyHash(), true, stopAfter < 0 ? 'hashed on the thread' : `the thread stopped after ${stopAfter} records`);
    await reopened.close();
  }
});

t.test('a chunk resumed at a position hashes what it held before and what is appended after', async (t) => {
  const directory = tempDirectory(t);
  const record = encodeSystemRecord(0, 1, 1, Buffer.from('{"resumed":true}'));
  const chunk = await Chunk.create(directory, 0, 64 * 1024);
  for (let i = 0; i < 3; i++) await chunk.append(record);
  await chunk.sync();
  await chunk.close();
  const reopened = await Chunk.open(join(directory, chunkFileName(0, 0)), 64 * 1024);
  // Resumed at the second record: the third was never acknowledged.
  await reopened.resumeWriting(record.length * 2);
  await reopened.append(record);
  await reopened.complete();
  await reopened.close();
  const completed = await Chunk.open(join(directory, chunkFileName(0, 0)), 64 * 1024);
  t.equal(completed.dataSize, record.length * 3);
  t.equal(await completed.verifyHash(), true);
  await completed.close();
});

// Regression: two in-place writes at once each opened the file (one FileHandle left for the
// collector to close, which Node warns about and will one day refuse) and could finish out of
// order, leaving the older value on disk.
t.test('in-place checkpoint writes at once run in call order, on one open file', async (t) => {
  const directory = tempDirectory(t);
  const checkpoint = Checkpoint.open(directory, CheckpointName.chaser, 0, true);
  const values = Array.from({ length: 20 }, (_, i) => 2 ** 33 + i);
  await Promise.all(values.map((value) => checkpoint.writeAsync(value)));
  t.equal(checkpoint.value, values[values.length - 1], 'the last value written is the value');
  t.equal(readFileSync(join(directory, CheckpointName.chaser)).readBigInt64LE(0), BigInt(values[values.length - 1]), 'and the one on disk');
  t.equal(descriptorsUnder(directory).length, 1, 'one file is open for all of them');
  await checkpoint.close();
  t.same(descriptorsUnder(directory), [], 'none once it is closed');
});

t.test('checkpoints: 8-byte little-endian files, created with their initial value, durable across reopen', async (t) => {
  const directory = tempDirectory(t);
  for (const inPlace of [true, false]) {
    const name = inPlace ? CheckpointName.writer : CheckpointName.truncate;
    const checkpoint = Checkpoint.open(directory, name, inPlace ? 0 : -1, inPlace);
    t.equal(readFileSync(join(directory, name)).readBigInt64LE(0), inPlace ? 0n : -1n);
    checkpoint.write(2 ** 40 + 5);
    await checkpoint.writeAsync(2 ** 41 + 7);
    await checkpoint.close();
    t.equal(readFileSync(join(directory, name)).length, 8);
    t.equal(Checkpoint.open(directory, name, 0, inPlace).value, 2 ** 41 + 7, `${name} survives a reopen`);
  }
  writeFileSync(join(directory, CheckpointName.chaser), Buffer.alloc(5));
  t.throws(() => Checkpoint.open(directory, CheckpointName.chaser, 0, true), { code: Errors.storageCorrupt.code });
  t.notOk(readdirSync(directory).some((name) => name.endsWith('.tmp')), 'no temp files left by durable replaces');
});
