/**
 * Recovery past a writer.chk that lags the log. A group commit fsyncs the chunk and moves
 * writer.chk on without an fsync, so a crash of the machine can leave writer.chk behind records
 * that were acknowledged: the start walks on over whole, sound writes and stops at the first
 * thing that is not one. The tests set writer.chk back by hand, as such a crash would leave it.
 */
import t, { type Test } from 'tap';
import { closeSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { CHUNK_HEADER_BYTES, chunkFileName } from '../../src/storage/log/chunk-format.js';
import { CheckpointName } from '../../src/storage/layout.js';
import type { Engine } from '../../src/storage/engine.js';
import { readCheckpointFile, writeCheckpointFile } from '../helpers/checkpoint-files.js';
import { SMALL, newEvent, newEvents, openEngine, tempDirectory } from '../helpers/engine.js';

const CHUNK = SMALL.chunkSizeBytes;

const readCheckpoint = (directory: string, name: string) => readCheckpointFile(join(directory, 'db'), name);
const writeCheckpoint = (directory: string, name: string, value: number) => writeCheckpointFile(join(directory, 'db'), name, value);

function firstChunkPath(directory: string): string {
  return join(directory, 'db', chunkFileName(0, 0));
}

/** Reads `length` bytes of the first chunk's data at data offset `local`. */
function readData(directory: string, local: number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  const fd = openSync(firstChunkPath(directory), 'r');
  readSync(fd, bytes, 0, length, CHUNK_HEADER_BYTES + local);
  closeSync(fd);
  return bytes;
}

function writeData(directory: string, local: number, bytes: Buffer): void {
  const fd = openSync(firstChunkPath(directory), 'r+');
  writeSync(fd, bytes, 0, bytes.length, CHUNK_HEADER_BYTES + local);
  closeSync(fd);
}

function flipDataByte(directory: string, local: number): void {
  const byte = readData(directory, local, 1);
  byte[0] ^= 0xff;
  writeData(directory, local, byte);
}

function allEventIds(engine: Engine): string[] {
  const ids: string[] = [];
  for (let page = engine.readAllForward(0, 1000); ; page = engine.readAllForward(page.nextPosition, 1000)) {
    ids.push(...page.events.map((event) => event.eventId));
    if (page.isEnd) return ids;
  }
}

interface Written {
  directory: string;
  /** writer.chk after the first writes: where a crash may have left it. */
  behind: number;
  /** The end of the log at the clean close. */
  end: number;
  singles: string[];
  batch: string[];
  /** Where the records of the last write (a batch of 4) begin. */
  batchPositions: number[];
}

/** Three single-event writes, then two more and a batch of four, in the first chunk; closed cleanly. */
async function writeLog(t: Test): Promise<Written> {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  const singles = newEvents(5);
  for (const event of singles.slice(0, 3)) await engine.append('singles', -2, [event]);
  const behind = engine.status().readableEnd;
  for (const event of singles.slice(3)) await engine.append('singles', -2, [event]);
  const batch = newEvents(4);
  await engine.append('batch', -1, batch);
  const batchPositions = engine.readStreamForward('batch', 0, 10).events.map((event) => event.logPosition);
  const end = engine.status().readableEnd;
  await engine.close();
  t.equal(readCheckpoint(directory, CheckpointName.writer), end, 'a clean close leaves writer.chk at the end');
  t.ok(end < CHUNK, 'the writes lie in the first chunk');
  return { directory, behind, end, singles: singles.map((e) => e.eventId), batch: batch.map((e) => e.eventId), batchPositions };
}

t.test('a writer.chk behind acknowledged writes is moved on to the last whole write: nothing is lost', async (t) => {
  const log = await writeLog(t);
  writeCheckpoint(log.directory, CheckpointName.writer, log.behind);
  const engine = await openEngine(log.directory);
  t.same(allEventIds(engine), [...log.singles, ...log.batch], 'every write past writer.chk is there, in order');
  t.equal(engine.status().epochPosition, log.end, 'the start\'s epoch record follows the last write');
  t.ok(readCheckpoint(log.directory, CheckpointName.writer) > log.end, 'writer.chk is past it on disk');
  t.match(await engine.append('singles', 4, [newEvent()]), { firstEventNumber: 5 }, 'numbering goes on from the recovered writes');
});

t.test('past the last whole write, zeros, garbage, a torn record or an older record end the log', async (t) => {
  const tails: Array<[string, (log: Written) => void]> = [
    ['zeros', () => undefined],
    ['garbage', (log) => writeData(log.directory, log.end, Buffer.alloc(3000, 0xab))],
    ['a torn record', (log) => writeData(log.directory, log.end, readData(log.directory, log.batchPositions[3], 120))],
    // Whole and sound, but written for another position: bytes a crash may leave past the end.
    ['an older record', (log) => writeData(log.directory, log.end, readData(log.directory, log.batchPositions[0], log.batchPositions[1] - log.batchPositions[0]))],
  ];
  for (const [name, damage] of tails) {
    const log = await writeLog(t);
    damage(log);
    writeCheckpoint(log.directory, CheckpointName.writer, log.behind);
    const engine = await openEngine(log.directory);
    t.same(allEventIds(engine), [...log.singles, ...log.batch], `${name}: every write is there and nothing else`);
    t.equal(engine.status().epochPosition, log.end, `${name}: the log ended where the writes did`);
    await engine.close();
  }
});

t.test('a multi-event write torn by the crash is dropped whole, and so is one cut short', async (t) => {
  const damages: Array<[string, (log: Written) => void]> = [
    ['a bad byte in its last record', (log) => flipDataByte(log.directory, log.batchPositions[3] + 40)],
    ['its last record missing', (log) => writeData(log.directory, log.batchPositions[3], Buffer.alloc(log.end - log.batchPositions[3]))],
  ];
  for (const [name, damage] of damages) {
    const log = await writeLog(t);
    damage(log);
    writeCheckpoint(log.directory, CheckpointName.writer, log.behind);
    const engine = await openEngine(log.directory);
    t.same(allEventIds(engine), log.singles, `${name}: none of the batch's events, every event before it`);
    t.equal(engine.readStreamForward('batch', 0, 10).status, 'notFound', `${name}: the batch's stream does not exist`);
    t.equal(engine.status().epochPosition, log.batchPositions[0], `${name}: the log goes on where the batch began`);
    t.match(await engine.append('batch', -1, newEvents(2)), { firstEventNumber: 0 }, `${name}: the stream can be written anew`);
    await engine.close();
  }
});

/** Five single-event writes in a completed first chunk, writer.chk set back behind the last three. */
async function completedChunkBehindWriter(t: Test): Promise<{ directory: string; ids: string[]; positions: number[]; fileBytes: number }> {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  const events = newEvents(5);
  for (const event of events) await engine.append('completed', -2, [event]);
  const positions = engine.readStreamForward('completed', 0, 10).events.map((event) => event.logPosition);
  t.equal(await engine.completeActiveChunk(), CHUNK, 'the first chunk is completed');
  await engine.close();
  writeCheckpoint(directory, CheckpointName.writer, positions[2]);
  return { directory, ids: events.map((e) => e.eventId), positions, fileBytes: statSync(firstChunkPath(directory)).size };
}

t.test('a writer.chk behind the end of a completed chunk: the chunk is kept whole when its hash holds', async (t) => {
  const { directory, ids, fileBytes } = await completedChunkBehindWriter(t);
  const engine = await openEngine(directory);
  t.same(allEventIds(engine), ids, 'every event of the chunk is there');
  t.equal(statSync(firstChunkPath(directory)).size, fileBytes, 'the completed chunk file is left as it was');
  t.equal(engine.status().epochPosition, CHUNK, 'the log goes on in the next chunk');
});

t.test('a writer.chk behind the end of a completed chunk whose hash fails: cut back to its last sound write', async (t) => {
  const { directory, ids, positions } = await completedChunkBehindWriter(t);
  flipDataByte(directory, positions[4] + 40);
  const engine = await openEngine(directory);
  t.same(allEventIds(engine), ids.slice(0, 4), 'the writes before the bad record are there, nothing after');
  t.equal(engine.status().epochPosition, positions[4], 'the chunk is ongoing again from there');
  t.match(await engine.append('completed', 3, [newEvent()]), { firstEventNumber: 4 }, 'appends go on');
});
