import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Errors } from '../../src/common/errors.js';
import { writeRewrittenChunk } from '../../src/storage/maintenance/chunk-rewrite.js';
import { replacementValidator } from '../../src/storage/maintenance/replacement-check.js';
import type { Chunk } from '../../src/storage/log/chunk.js';
import type { Engine } from '../../src/storage/engine.js';
import { RecordKind, decodeRecord, encodeEventRecord, type EventRecord, type RecordHead } from '../../src/storage/log/record.js';
import { newEvents, openEngine, tempDirectory } from '../helpers/engine.js';

/**
 * The chunk-replacement seam: a completed chunk replaced by a rewritten copy with a position map
 * (fewer records, packed) reads exactly as before, by event number, by $all position and in pages
 * across it, before and after a restart; a copy with a bad hash or a changed record is refused
 * and changes nothing; and a crash at any step of a replacement leaves a database that opens with
 * every event.
 */

const STREAMS = ['alpha', 'beta', 'gamma'];
const CHILD = fileURLToPath(new URL('../helpers/replace-child.ts', import.meta.url));

/** A database of several chunks whose first chunks hold the epoch records of several starts. */
async function buildDatabase(t: Test): Promise<string> {
  const directory = tempDirectory(t);
  // Short starts first (their epoch records land in chunk 0), then one long enough to fill chunks.
  for (const rounds of [10, 10, 10, 300]) {
    const engine = await openEngine(directory);
    for (let round = 0; round < rounds; round++) {
      for (const stream of STREAMS) await engine.append(stream, -2, newEvents(1 + (round % 3)));
    }
    await engine.close();
  }
  return directory;
}

/** Everything a reader can see, by every way of reading. */
function snapshot(engine: Engine): unknown {
  const streams = STREAMS.map((stream) => {
    const forward = engine.readStreamForward(stream, 0, 4096).events.map(identify);
    const backward = engine.readStreamBackward(stream, -1, 4096).events.map(identify);
    const byNumber = forward.map((_, number) => identify(engine.readEvent(stream, number).event!));
    return { forward, backward, byNumber };
  });
  const allForward: string[][] = [];
  for (let position = 0, page = engine.readAllForward(0, 7); ; page = engine.readAllForward(position, 7)) {
    allForward.push(page.events.map((event) => `${event.logPosition}:${identify(event)}`));
    if (page.isEnd) break;
    position = page.nextPosition;
  }
  const allBackward: string[][] = [];
  for (let page = engine.readAllBackward(-1, 5); ; page = engine.readAllBackward(page.nextPosition, 5)) {
    allBackward.push(page.events.map((event) => `${event.logPosition}:${identify(event)}`));
    if (page.isEnd) break;
  }
  return { streams, allForward, allBackward };
}

function identify(event: EventRecord): string {
  return `${event.streamName}/${event.eventNumber}/${event.eventId}/${event.data.toString('base64')}`;
}

interface LogInternals {
  chunkRange(startNumber: number, endNumber: number): { header: never; logicalDataSize: number; chunks: Chunk[]; records: Array<{ logical: number; frame: Buffer }> };
}
const logOf = (engine: Engine) => (engine as unknown as { log: LogInternals }).log;
const recordsIn = (engine: Engine, chunkNumber: number) => logOf(engine).chunkRange(chunkNumber, chunkNumber).records.length;

const chunkFiles = (directory: string) => readdirSync(join(directory, 'db')).filter((name) => name.startsWith('chunk-')).sort();

/** Keeps events and the epoch record the engine chains the next start to; drops older epochs. */
const withoutOldEpochs = (engine: Engine) => {
  const current = engine.status().epochPosition;
  return (record: RecordHead) => record.kind !== RecordKind.system || record.logPosition === current;
};

t.test('a chunk rewritten without some records, and two chunks merged into one, read exactly as before', async (t) => {
  const directory = await buildDatabase(t);
  const engine = await openEngine(directory);
  t.ok(engine.status().chunkCount >= 4, `${engine.status().chunkCount} chunks`);
  const before = snapshot(engine);
  const recordsBefore = recordsIn(engine, 0);
  const keep = withoutOldEpochs(engine);
  const oldEpochs = logOf(engine).chunkRange(0, 0).records.filter(({ frame }) => !keep(decodeRecord(frame, 0))).length;
  await engine.rewriteChunks(0, 0, withoutOldEpochs(engine));
  await engine.rewriteChunks(1, 2, () => true);
  t.equal(engine.status().chunkReplacements, 2);
  t.same(snapshot(engine), before, 'every read returns the same events after the switch');
  t.same(chunkFiles(directory).slice(0, 2), ['chunk-000000.000001', 'chunk-000001.000001'], 'new versions in place, merged file covers chunk 2');
  t.notOk(chunkFiles(directory).includes('chunk-000002.000000'), 'the merged-away file is gone');
  const replacedFiles = () => readdirSync(join(directory, 'db')).filter((name) => name.startsWith('replaced-'));
  t.ok(replacedFiles().every((name) => ['replaced-chunk-000000.000000', 'replaced-chunk-000001.000000', 'replaced-chunk-000002.000000'].includes(name)),
    'the replaced files, until they are deleted, are renamed out of the chunk names');
  t.ok(oldEpochs > 0, `chunk 0 held ${oldEpochs} old epoch records`);
  t.equal(recordsIn(engine, 0), recordsBefore - oldEpochs, 'the rewritten chunk holds every record but those');
  await engine.close();
  t.same(replacedFiles(), [], 'once the engine is closed the replaced files are deleted');

  const reopened = await openEngine(directory);
  t.same(snapshot(reopened), before, 'and after a restart, which verifies every chunk hash');
  await reopened.append('alpha', -2, newEvents(5));
  t.equal(reopened.readStreamBackward('alpha', -1, 1).events[0].eventNumber, (before as { streams: Array<{ forward: unknown[] }> }).streams[0].forward.length + 4);
});

t.test('a rewrite written in small flushed steps (a throttled scavenge) gives the same chunks as one written whole', async (t) => {
  const stepped = await buildDatabase(t);
  const whole = tempDirectory(t);
  cpSync(stepped, whole, { recursive: true });
  const engines = [await openEngine(stepped), await openEngine(whole)];
  const before = snapshot(engines[0]);
  let gaveWay = 0;
  const betweenBlocks = () => new Promise<void>((resolve) => setImmediate(() => resolve(void gaveWay++)));
  for (const [engine, options] of [[engines[0], { flushStepBytes: 4096, betweenBlocks }], [engines[1], {}]] as const) {
    await engine.rewriteChunks(0, 0, withoutOldEpochs(engine), options);
    await engine.rewriteChunks(1, 2, () => true, options);
    await engine.close();
  }
  t.ok(gaveWay >= 3, `the stepped rewrite gave way after each block of its 3 source chunks (${gaveWay} times)`);
  const files = chunkFiles(stepped);
  t.same(files, chunkFiles(whole), 'the same chunk files');
  for (const file of files.slice(0, 2)) {
    t.ok(readFileSync(join(stepped, 'db', file)).equals(readFileSync(join(whole, 'db', file))), `${file} holds the same bytes either way`);
  }
  const reopened = await openEngine(stepped);
  t.same(snapshot(reopened), before, 'and reads as before after a restart, which verifies every chunk hash');
  await reopened.close();
});

t.test('a rewritten chunk with a bad hash, a changed record or a moved record is refused and changes nothing', async (t) => {
  const directory = await buildDatabase(t);
  const engine = await openEngine(directory);
  const before = snapshot(engine);
  const files = chunkFiles(directory);
  const source = logOf(engine).chunkRange(0, 0);
  const attempt = async (name: string, records: Array<{ logical: number; frame: Buffer }>, damage?: (bytes: Buffer) => void) => {
    const path = join(directory, 'db', `${name}.tmp`);
    await writeRewrittenChunk({ path, header: source.header, logicalDataSize: source.logicalDataSize }, records);
    if (damage) {
      const bytes = readFileSync(path);
      damage(bytes);
      writeFileSync(path, bytes);
    }
    await t.rejects(engine.replaceChunks(path), { code: Errors.storageReplacementInvalid.code }, `${name} is refused`);
  };

  await attempt('bad-hash', source.records, (bytes) => (bytes[300] ^= 0xff));
  const changed = source.records.map((record) => ({ ...record, frame: Buffer.from(record.frame) }));
  const victim = changed.findIndex((record) => decodeRecord(record.frame, 0).kind === RecordKind.event);
  const event = decodeRecord(changed[victim].frame, 0) as EventRecord;
  const altered = Buffer.from(event.data);
  altered[0] = altered[0] === 0x7b ? 0x5b : 0x7b;
  encodeEventRecord(changed[victim].frame, 0, { ...event, data: altered });
  await attempt('changed-record', changed);
  const moved = source.records.map((record, i) => (i === victim ? { ...record, logical: record.logical + 1 } : record));
  await attempt('moved-record', moved);

  t.same(chunkFiles(directory), files, 'the chunk files are as they were');
  t.same(snapshot(engine), before, 'and so is every read');
  t.equal(engine.status().chunkReplacements, 0);
});

t.test("the check of the engine's own rewrites refuses a bad hash, a moved record, a wrong stored hash or a replaced source, and changes nothing", async (t) => {
  const directory = await buildDatabase(t);
  const engine = await openEngine(directory);
  const before = snapshot(engine);
  const files = chunkFiles(directory);
  const source = logOf(engine).chunkRange(0, 0);
  type Claim = 'none' | 'as-written' | 'other-source';
  const attempt = async (name: string, records: Array<{ logical: number; frame: Buffer }>, damage?: (bytes: Buffer) => void, claim: Claim = 'none') => {
    const path = join(directory, 'db', `${name}.tmp`);
    const digest = await writeRewrittenChunk({ path, header: source.header, logicalDataSize: source.logicalDataSize }, records);
    if (damage) {
      const bytes = readFileSync(path);
      damage(bytes);
      writeFileSync(path, bytes);
    }
    const written = claim === 'none' ? undefined : { from: claim === 'as-written' ? source.chunks : [], digest };
    const validate = replacementValidator({ kind: 'rewrite', written });
    await t.rejects(engine.replaceChunks(path, { validate }), { code: Errors.storageReplacementInvalid.code }, `${name} is refused`);
  };
  await attempt('bad-hash', source.records, (bytes) => (bytes[300] ^= 0xff));
  await attempt('not-the-hash-written', source.records, (bytes) => (bytes[bytes.length - 1] ^= 0xff), 'as-written');
  await attempt('source-replaced-meanwhile', source.records, undefined, 'other-source');
  await attempt('moved-record', source.records.map((record, i) => (i === 3 ? { ...record, logical: record.logical + 1 } : record)));
  t.same(chunkFiles(directory), files, 'the chunk files are as they were');
  t.same(snapshot(engine), before, 'and so is every read');
});

function runChild(directory: string, killAfter: string): Promise<{ signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, directory, killAfter], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (_, signal) => resolve({ signal, stdout, stderr }));
  });
}

t.test('SIGKILL at each step of a replacement: the database opens with every event, one file per chunk', async (t) => {
  const prepared = await buildDatabase(t);
  const reference = await openEngine(prepared);
  const before = snapshot(reference);
  await reference.close();
  for (const step of ['validated', 'renamed', 'switched', 'removed']) {
    const directory = tempDirectory(t);
    cpSync(prepared, directory, { recursive: true });
    const run = await runChild(directory, step);
    t.equal(run.signal, 'SIGKILL', `killed after "${step}"`, { stdout: run.stdout, stderr: run.stderr });
    const engine = await openEngine(directory);
    t.same(snapshot(engine), before, `after a kill at "${step}" every event reads as before`);
    const expected = step === 'validated' ? 'chunk-000000.000000' : 'chunk-000000.000001';
    t.equal(chunkFiles(directory)[0], expected, `the ${step === 'validated' ? 'old' : 'new'} chunk is in place`);
    const numbers = chunkFiles(directory).map((name) => name.slice(6, 12));
    t.equal(new Set(numbers).size, numbers.length, 'no chunk has two files');
    t.notOk(readdirSync(join(directory, 'db')).some((name) => name.endsWith('.tmp') || name.startsWith('replaced-')), 'no temp file or replaced file is left');
    await engine.close();
  }
});
