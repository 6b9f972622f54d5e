// Reads off the event loop (src/storage/disk/cold-reads.ts): a read that meets a page the page
// cache does not hold is abandoned, the page is read on the thread pool, and the read runs again.
// Files are made cold with posix_fadvise(DONTNEED), which needs no privilege.
import { closeSync, fsyncSync, openSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { coldReadCounters, dropFromPageCache, readData, readOffLoop, warmOffLoop } from '../../src/storage/disk/cold-reads.js';
import { nodeFileSystem, useFileSystem } from '../../src/storage/disk/file-system.js';
import { ExpectedVersion } from '../../src/storage/streams/stream-metadata.js';
import { newEvent, openEngine, tempDirectory } from '../helpers/engine.js';

/** Drops a file from the page cache. */
function dropFile(path: string): void {
  if (!dropFromPageCache(path)) throw new Error('dropping pages from the page cache is not supported here');
}

/** Drops every file under `directory` (recursively) from the page cache. */
function makeCold(directory: string): void {
  for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) dropFile(join(entry.parentPath, entry.name));
  }
}

/** Turns of the event loop (setImmediate) taken while `work` runs: none when it blocks the loop throughout. */
async function loopTurnsDuring<T>(work: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const value = await work;
  done = true;
  return { value, turns };
}

function coldFile(t: Test, bytes: Buffer): { path: string; fd: number } {
  const path = join(tempDirectory(t), 'cold.bin');
  writeFileSync(path, bytes);
  const fd = openSync(path, 'r');
  // Dirty pages stay in the page cache: only pages on the disk can be dropped.
  fsyncSync(fd);
  t.teardown(() => closeSync(fd));
  dropFile(path);
  return { path, fd };
}

const CONTENT = Buffer.from(Array.from({ length: 3 * 1024 * 1024 }, (_, i) => (i * 7) & 0xff));

t.test('a cold page ends the attempt; the page is warmed off the loop and the read runs again', async (t) => {
  const { fd } = coldFile(t, CONTENT);
  const misses = coldReadCounters.misses;
  let attempts = 0;
  const { value, turns } = await loopTurnsDuring(readOffLoop(() => {
    attempts++;
    const buffer = Buffer.alloc(4096);
    t.equal(readData(fd, buffer, 0, buffer.length, 2 * 1024 * 1024), buffer.length);
    return buffer;
  }));
  t.same(value, CONTENT.subarray(2 * 1024 * 1024, 2 * 1024 * 1024 + 4096), 'the bytes are the file\'s');
  t.equal(attempts, 2, 'one attempt met the cold page, the next found it warm');
  t.equal(coldReadCounters.misses, misses + 1, 'one miss counted');
  t.ok(turns > 0, 'the event loop turned while the page was read');
});

t.test('a cold read swallowed by a catch on the read path still ends the attempt', async (t) => {
  const { fd } = coldFile(t, CONTENT);
  let attempts = 0;
  const value = await readOffLoop(() => {
    attempts++;
    try {
      const buffer = Buffer.alloc(16);
      readData(fd, buffer, 0, 16, 100);
      return buffer.toString('hex');
    } catch {
      return 'a wrong answer';
    }
  });
  t.equal(value, CONTENT.subarray(100, 116).toString('hex'));
  t.equal(attempts, 2);
});

t.test('warmOffLoop answers at once when nothing is cold', async (t) => {
  const { fd } = coldFile(t, CONTENT);
  const read = () => {
    readData(fd, Buffer.alloc(8), 0, 8, 0);
  };
  const warming = warmOffLoop(read);
  t.ok(warming instanceof Promise, 'a cold file is warmed off the loop');
  await warming;
  t.equal(warmOffLoop(read), undefined, 'then the same read finishes at once');
});

t.test('outside readOffLoop, and with a test\'s file system installed, reads go through the seam and block', async (t) => {
  const { path, fd } = coldFile(t, CONTENT);
  const buffer = Buffer.alloc(8);
  t.equal(readData(fd, buffer, 0, 8, 8), 8, 'outside readOffLoop a cold read blocks and succeeds');
  dropFile(path);
  let seen = 0;
  const restore = useFileSystem({ ...nodeFileSystem, readSync: (...args) => { seen++; return nodeFileSystem.readSync(...args); } });
  t.teardown(restore);
  let attempts = 0;
  await readOffLoop(() => {
    attempts++;
    return readData(fd, buffer, 0, 8, 1024 * 1024);
  });
  t.equal(attempts, 1, 'no attempt is abandoned: the installed file system decides');
  t.equal(seen, 1, 'the read reached the installed file system, where faults are injected');
});

t.test('an engine reads a cold log and index off the loop, and writes to cold streams in order', async (t) => {
  const directory = tempDirectory(t);
  let engine = await openEngine(directory);
  const streams = Array.from({ length: 20 }, (_, i) => `cold-${i}`);
  for (let round = 0; round < 30; round++) {
    for (const stream of streams) await engine.append(stream, ExpectedVersion.any, [newEvent('Cold', { round, pad: 'x'.repeat(200) })]);
  }
  const allBefore = engine.readAllForward(0, 1000);
  const streamBefore = engine.readStreamBackward('cold-7', -1, 30);
  await engine.close();
  engine = await openEngine(directory);
  await engine.settleIndex();
  makeCold(directory);

  const misses = coldReadCounters.misses;
  const { value: all, turns } = await loopTurnsDuring(readOffLoop(() => engine.readAllForward(0, 1000)));
  t.same(all.events.map((event) => event.eventId), allBefore.events.map((event) => event.eventId), 'the cold $all page is the page');
  t.ok(turns > 0, 'the loop turned while the cold chunks were read');
  const stream = await readOffLoop(() => engine.readStreamBackward('cold-7', -1, 30));
  t.same(stream.events.map((event) => event.eventNumber), streamBefore.events.map((event) => event.eventNumber), 'a cold stream read through the index files');
  t.ok(coldReadCounters.misses > misses, 'cold pages were met and warmed');

  await engine.close();
  engine = await openEngine(directory);
  await engine.settleIndex();
  makeCold(directory);
  const warmBefore = coldReadCounters.misses;
  // Written without waiting: the cold stream's write is held back while its state is read, and
  // the write to a new stream after it waits its turn.
  const cold = engine.append('cold-3', 29, [newEvent('After')]);
  const fresh = engine.append('fresh', ExpectedVersion.noStream, [newEvent('After')]);
  const [coldResult, freshResult] = await Promise.all([cold, fresh]);
  t.equal(coldResult.firstEventNumber, 30, 'the expected version was checked against the stream\'s cold state');
  t.ok(coldResult.logPosition < freshResult.logPosition, 'writes reach the log in the order they came');
  t.ok(coldReadCounters.misses > warmBefore, 'the stream\'s state was warmed off the loop');
});
