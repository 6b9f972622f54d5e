import t, { type Test } from 'tap';
import { closeSync, openSync, readSync, writeSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Errors } from '../../src/common/errors.js';
import { CHUNK_HEADER_BYTES, chunkFileName, decodeChunkHeader } from '../../src/storage/log/chunk-format.js';
import { silentLogger, type Logger } from '../../src/common/logger.js';
import type { Engine } from '../../src/storage/engine.js';
import { readCheckpointFile, writeCheckpointFile } from '../helpers/checkpoint-files.js';
import { SMALL, appendUntilChunks, fatalError, flipByteInFirstChunk, newEvent, newEvents, openEngine, tempDirectory } from '../helpers/engine.js';

const CHUNK = SMALL.chunkSizeBytes;
const HEADER = 128;

function readChunkHeaderSize(path: string): number {
  const bytes = Buffer.alloc(CHUNK_HEADER_BYTES);
  const fd = openSync(path, 'r');
  readSync(fd, bytes, 0, CHUNK_HEADER_BYTES, 0);
  closeSync(fd);
  const header = decodeChunkHeader(bytes);
  if (typeof header === 'string') throw new Error(`${path}: ${header}`);
  return header.chunkSize;
}

const readCheckpoint = (directory: string, name: string) => readCheckpointFile(join(directory, 'db'), name);
const writeCheckpoint = (directory: string, name: string, value: number) => writeCheckpointFile(join(directory, 'db'), name, value);

function patchFile(path: string, offset: number, bytes: Buffer): void {
  const fd = openSync(path, 'r+');
  writeSync(fd, bytes, 0, bytes.length, offset);
  closeSync(fd);
}

function allEventIds(engine: Engine): string[] {
  const ids: string[] = [];
  for (let page = engine.readAllForward(0, 1000); ; page = engine.readAllForward(page.nextPosition, 1000)) {
    ids.push(...page.events.map((e) => e.eventId));
    if (page.isEnd) return ids;
  }
}

t.test('a torn record and garbage past writer.chk are discarded; appends continue', async (t) => {
  const directory = tempDirectory(t);
  let engine = await openEngine(directory);
  const events = newEvents(40);
  for (const event of events) await engine.append('torn', -2, [event]);
  await engine.close();
  const writer = readCheckpoint(directory, 'writer.chk');
  const chunkNumber = Math.floor(writer / CHUNK);
  const path = join(directory, 'db', chunkFileName(chunkNumber, 0));
  // The first half of a real record, as if the process died in the middle of the write.
  const fd = openSync(path, 'r');
  const lastRecord = Buffer.alloc(200);
  readSync(fd, lastRecord, 0, 200, HEADER + (writer % CHUNK) - 200);
  closeSync(fd);
  patchFile(path, HEADER + (writer % CHUNK), lastRecord.subarray(0, 120));
  patchFile(path, HEADER + (writer % CHUNK) + 120, Buffer.alloc(3000, 0xab));

  engine = await openEngine(directory);
  t.same(engine.readStreamForward('torn', 0, 100).events.map((e) => e.eventId), events.map((e) => e.eventId));
  const extra = newEvent();
  t.match(await engine.append('torn', 39, [extra]), { firstEventNumber: 40 });
  const ids = allEventIds(engine);
  t.same(ids, [...events, extra].map((e) => e.eventId), 'nothing torn or invented in $all');
});

t.test('truncate.chk cuts the log back, rebuilds the index and resets itself', async (t) => {
  const directory = tempDirectory(t);
  let engine = await openEngine(directory);
  const kept = newEvents(120);
  for (let i = 0; i < kept.length; i += 4) await engine.append(`cut-${i % 3}`, -2, kept.slice(i, i + 4));
  const cutAt = engine.status().readableEnd;
  for (let i = 0; i < 200; i++) await engine.append(`cut-${i % 3}`, -2, newEvents(3));
  t.ok(engine.indexStats().files.length > 0, 'index files cover positions past the cut');
  await engine.close();
  t.ok(readCheckpoint(directory, 'writer.chk') > cutAt + CHUNK, 'the cut drops whole chunks too');
  writeCheckpoint(directory, 'truncate.chk', cutAt);

  engine = await openEngine(directory);
  t.equal(readCheckpoint(directory, 'truncate.chk'), -1, 'truncate.chk reset');
  t.ok(readCheckpoint(directory, 'chaser.chk') <= readCheckpoint(directory, 'writer.chk'));
  t.same(allEventIds(engine), kept.map((e) => e.eventId), 'exactly the events before the cut');
  const last = engine.readStreamBackward('cut-0', -1, 1).events[0].eventNumber;
  t.match(await engine.append('cut-0', last, [newEvent()]), { firstEventNumber: last + 1 }, 'numbering continues from the cut');
});

t.test('truncate.chk on a chunk boundary removes that chunk and everything after', async (t) => {
  const directory = tempDirectory(t);
  let engine = await openEngine(directory);
  await appendUntilChunks(engine, 'boundary', 3);
  await engine.close();
  writeCheckpoint(directory, 'truncate.chk', CHUNK);
  engine = await openEngine(directory);
  const ids = allEventIds(engine);
  const lastNumber = engine.readStreamBackward('boundary', -1, 1).events[0]?.eventNumber ?? -1;
  t.equal(ids.length, lastNumber + 1, 'stream and $all agree');
  t.ok(engine.readAllBackward(-1, 1000).events.every((e) => e.logPosition < 2 * CHUNK), 'nothing from removed chunks');
  t.ok(readdirSync(join(directory, 'db')).filter((n) => n.startsWith('chunk-')).length <= 2);
});

async function directoryWithCompletedChunks(directory: string): Promise<void> {
  const engine = await openEngine(directory);
  await appendUntilChunks(engine, 'bytes', 3);
  await engine.close();
}


t.test('a corrupt byte in a completed chunk is detected at start and named', async (t) => {
  const directory = tempDirectory(t);
  await directoryWithCompletedChunks(directory);
  const path = await flipByteInFirstChunk(directory, HEADER + 5000);
  const running = intervalsRunning(t);
  await t.rejects(openEngine(directory), { code: Errors.storageChunkHash.code, details: { file: path } });
  t.equal(running.size, 0, 'the refused start leaves no timer of the engine running');
});

/** The intervals set from now until the test ends and not cleared yet (the engine's are unref'd: nothing else lists them). */
function intervalsRunning(t: Test): Set<NodeJS.Timeout> {
  const running = new Set<NodeJS.Timeout>();
  const { setInterval: realSet, clearInterval: realClear } = globalThis;
  globalThis.setInterval = ((...args: Parameters<typeof realSet>) => {
    const timer = realSet(...args);
    running.add(timer);
    return timer;
  }) as typeof setInterval;
  globalThis.clearInterval = ((timer: NodeJS.Timeout) => {
    running.delete(timer);
    realClear(timer);
  }) as typeof clearInterval;
  t.teardown(() => {
    globalThis.setInterval = realSet;
    globalThis.clearInterval = realClear;
  });
  return running;
}

t.test('with verification in the background the engine stops and reports the file', async (t) => {
  const directory = tempDirectory(t);
  await directoryWithCompletedChunks(directory);
  const path = await flipByteInFirstChunk(directory, HEADER + 5000);
  const engine = await openEngine(directory, { verifyChunks: 'background' });
  const fatal = await fatalError(engine);
  t.match(fatal, { code: Errors.storageChunkHash.code, details: { file: path } });
  await t.rejects(engine.append('bytes', -2, [newEvent()]), { code: Errors.storageClosed.code });
  await engine.close();
});

t.test('a corrupt record is never served: the read fails with the checksum error and the engine stops', async (t) => {
  const directory = tempDirectory(t);
  await directoryWithCompletedChunks(directory);
  const path = await flipByteInFirstChunk(directory, HEADER + 5000);
  const engine = await openEngine(directory, { verifyChunks: 'off' });
  const fatal = fatalError(engine);
  t.throws(() => allEventIds(engine), { code: Errors.storageChecksum.code, details: { file: path } });
  t.match(await fatal, { code: Errors.storageChecksum.code }, 'the engine stops');
  t.throws(() => engine.readAllForward(0, 10), { code: Errors.storageClosed.code });
});

t.test('the chunk size belongs to the database: another configured size is reported, and the database keeps its own', async (t) => {
  const directory = tempDirectory(t);
  const first = await openEngine(directory);
  const written = newEvents(600);
  for (const event of written) await first.append('sized', -2, [event]);
  t.ok(first.status().chunkCount > 1, 'the events cross chunk ends');
  await first.close();

  const warnings: Array<Record<string, unknown>> = [];
  const logger = { ...silentLogger, warn: (fields: Record<string, unknown>) => void warnings.push(fields), child: () => logger } as unknown as Logger;
  const reopened = await openEngine(directory, { chunkSizeBytes: 4 * CHUNK, logger });
  t.match(warnings, [{ configuredChunkSize: 4 * CHUNK, databaseChunkSize: CHUNK }], 'the difference is logged with both sizes');
  t.same(reopened.readStreamForward('sized', 0, 1000).events.map((event) => event.eventId), written.map((event) => event.eventId), 'every event reads back');
  for (const event of newEvents(600)) await reopened.append('sized', -2, [event]);
  const sizes = readdirSync(join(directory, 'db')).filter((name) => name.startsWith('chunk-')).map((name) => readChunkHeaderSize(join(directory, 'db', name)));
  t.same(new Set(sizes), new Set([CHUNK]), 'new chunks follow the database size');
  t.equal(reopened.readStreamForward('sized', 0, 2000).events.length, 1200);
});
