import t from 'tap';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Md5FileStream, RunningMd5, md5OfFile, md5OfShared, stopHashingThread, touchPages } from '../../src/common/md5-thread.js';
import { testRandom, type TestRandom } from '../helpers/random.js';

/**
 * The hashing thread gives the same MD5 as hashing on the main thread, for shared memory and for
 * a range of a file, with several requests at once, and reports a file it cannot read.
 */

function randomBytes(random: TestRandom, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) bytes[i] = random.word() & 0xff;
  return bytes;
}

const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest();

t.test('requests in parallel do not mix', async (t) => {
  const random = testRandom(t);
  const inputs = [0, 1, 5_000_000, 4 * 1024 * 1024].map((length) => randomBytes(random, length));
  const shared = inputs.map((input) => {
    const view = Buffer.from(new SharedArrayBuffer(input.length));
    input.copy(view);
    return view;
  });
  t.same(await Promise.all(shared.map((view) => md5OfShared(view))), inputs.map(md5));
});

t.test('a shared buffer and a file range hash like createHash; a missing file is an error', async (t) => {
  const random = testRandom(t);
  const directory = mkdtempSync(join(tmpdir(), 'svcdb-md5-'));
  t.teardown(() => rmSync(directory, { recursive: true, force: true }));
  const data = randomBytes(random, 10 * 1024 * 1024 + 3);
  const shared = Buffer.from(new SharedArrayBuffer(data.length));
  data.copy(shared);
  t.same(await md5OfShared(shared.subarray(5, data.length - 16)), md5(data.subarray(5, data.length - 16)));
  t.throws(() => md5OfShared(data), TypeError, 'only a view of shared memory is hashed without a copy');
  const path = join(directory, 'file');
  writeFileSync(path, data);
  t.same(await md5OfFile(path, data.length - 16), md5(data.subarray(0, data.length - 16)));
  t.same(await md5OfFile(path, 0), md5(Buffer.alloc(0)));
  await t.rejects(md5OfFile(path, data.length + 1), /ended at byte/, 'a file shorter than the range');
  await t.rejects(md5OfFile(join(directory, 'missing'), 10), /ENOENT/);
});

t.test('a file stream hashes the views fed in order and tells whether the file holds each', async (t) => {
  const random = testRandom(t);
  const directory = mkdtempSync(join(tmpdir(), 'svcdb-md5-'));
  t.teardown(() => rmSync(directory, { recursive: true, force: true }));
  const data = randomBytes(random, 3 * 1024 * 1024 + 7);
  const shared = Buffer.from(new SharedArrayBuffer(data.length));
  data.copy(shared);
  const path = join(directory, 'file');
  const onDisk = Buffer.from(data);
  onDisk[2 * 1024 * 1024 + 1] ^= 0xff;
  writeFileSync(path, onDisk);
  const stream = new Md5FileStream(path);
  const first = shared.subarray(0, 1024 * 1024);
  const second = shared.subarray(1024 * 1024);
  await stream.update(first);
  await stream.update(second);
  t.equal(await stream.check(first, 0), true, 'the file holds the first view where it was written');
  t.equal(await stream.check(second, 1024 * 1024), false, 'a byte changed in the file is found');
  t.equal(await stream.check(first, 1), false, 'and so is a view looked for at the wrong place');
  t.same(await stream.end(), md5(data), 'the digest is of the views, in order');
  const refusing = new Md5FileStream(path);
  t.throws(() => refusing.update(data), TypeError, 'only views of shared memory are fed');
  t.same(await refusing.end(), md5(Buffer.alloc(0)));
  await t.rejects(new Md5FileStream(join(directory, 'missing')).end(), /ENOENT/, 'a file it cannot open is an error');
});

t.test('a running hash answers digests of what it was fed plus zeros and a tail, and goes on after each', async (t) => {
  const random = testRandom(t);
  const data = randomBytes(random, 2 * 1024 * 1024 + 11);
  const shared = Buffer.from(new SharedArrayBuffer(data.length));
  data.copy(shared);
  const tail = Buffer.from('footer');
  const running = new RunningMd5();
  running.update(shared.subarray(0, 1000));
  const early = running.digestWith(0, tail);
  running.update(shared.subarray(1000));
  running.update(Buffer.from('copied, not shared'));
  const fed = Buffer.concat([data, Buffer.from('copied, not shared')]);
  t.same(await early, md5(Buffer.concat([data.subarray(0, 1000), tail])), 'a digest covers what was fed before it was asked');
  t.same(await running.digestWith(5000, tail), md5(Buffer.concat([fed, Buffer.alloc(5000), tail])));
  t.same(await running.digestWith(0, Buffer.alloc(0)), md5(fed), 'asking did not end it');
  running.end();
  await t.rejects(running.digestWith(0, tail), /ended/);
});

t.test('a running hash lost with its thread fails its digests rather than answering wrong ones', async (t) => {
  const running = new RunningMd5();
  running.update(Buffer.from('before'));
  await stopHashingThread();
  running.update(Buffer.from('after'));
  await t.rejects(running.digestWith(0, Buffer.alloc(0)), /hashing thread/);
  const fresh = new RunningMd5();
  fresh.update(Buffer.from('abc'));
  t.same(await fresh.digestWith(0, Buffer.alloc(0)), md5(Buffer.from('abc')), 'the next hash gets a new thread');
  fresh.end();
});

t.test('touching pages changes no byte, even while the main thread writes the same memory', async (t) => {
  const random = testRandom(t);
  const memory = Buffer.from(new SharedArrayBuffer(64 * 1024 * 1024));
  const expected = Buffer.alloc(memory.length);
  // The touch does not keep the process alive by itself.
  const alive = setInterval(() => undefined, 1000);
  t.teardown(() => clearInterval(alive));
  const touched = touchPages(memory.subarray(4096 * 3 + 1));
  for (let at = 0; at < memory.length; at += 1021) {
    const value = random.word() & 0xff;
    memory[at] = value;
    expected[at] = value;
    if (at % (1021 * 4096) === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await touched;
  t.ok(memory.equals(expected), 'every byte is as the main thread wrote it');
  t.throws(() => touchPages(Buffer.alloc(10)), TypeError, 'only shared memory is touched');
});
