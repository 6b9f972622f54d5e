import t from 'tap';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Errors } from '../../src/common/errors.js';
import { writeRedactedCopy } from '../../src/maint/redact/chunk-copy.js';
import { eventFrameLayout, resealFrame } from '../../src/storage/log/record.js';
import { redactFrame } from '../../src/storage/maintenance/redaction.js';
import { appendUntilChunks, openEngine, tempDirectory } from '../helpers/engine.js';
import {
  buildRedactionDatabase, chunkFilesOf, completedEvents, isRedacted, redactThroughEngine, storedEvents, tempFilesOf,
} from '../helpers/redaction.js';

/**
 * Redaction in the engine: a redacted copy of a chunk switched in through the chunk-switch lock
 * replaces the data of exactly the listed events with 0xFF bytes of the same length and sets
 * their flag, leaving every other byte as it was; a copy that differs in any other way is
 * refused and changes nothing; and the lock keeps scavenge and redaction apart.
 */

t.test('redacting events in several chunks and streams changes their data and flag only', async (t) => {
  const directory = await buildRedactionDatabase(t);
  const dbPath = join(directory, 'db');
  const engine = await openEngine(directory);
  const before = storedEvents(engine);
  const targets = completedEvents(engine, 4);
  const chunks = new Set(targets.map((event) => engine.eventPositions(event.streamName, event.eventNumber)[0].chunkFileName));
  t.ok(chunks.size >= 2, `the events lie in ${chunks.size} chunks`);
  const switched = await redactThroughEngine(engine, dbPath, targets);
  t.equal(switched.length, chunks.size, 'one switch per chunk');
  t.ok(switched.every((name) => name.endsWith('.000001')), `new versions: ${switched.join(', ')}`);
  t.equal(engine.status().chunkReplacements, chunks.size, 'readers see a new content version');

  const check = (label: string, after: ReturnType<typeof storedEvents>) => {
    const redacted = new Set(targets.map((event) => `${event.eventNumber}@${event.streamName}`));
    let unchanged = 0;
    for (const [key, original] of before) {
      const now = after.get(key)!;
      if (!redacted.has(key)) {
        if (JSON.stringify(now) !== JSON.stringify(original)) t.fail(`${label}: ${key} changed`);
        unchanged++;
        continue;
      }
      t.ok(isRedacted(now), `${label}: ${key} is flagged`);
      t.same(now.data, Buffer.alloc(original.data.length, 0xff), `${label}: ${key} data is 0xFF bytes of the same length`);
      t.same({ ...now, data: null, flags: now.flags & ~0x200 }, { ...original, data: null }, `${label}: ${key} keeps type, metadata, timestamp, ids`);
    }
    t.equal(unchanged, before.size - redacted.size, `${label}: ${unchanged} other events byte-identical`);
  };
  check('at once', storedEvents(engine));
  t.same(await redactThroughEngine(engine, dbPath, targets), [], 'running it again switches nothing');
  await engine.close();
  const reopened = await openEngine(directory);
  check('after a restart that verified every chunk hash', storedEvents(reopened));
  t.same(tempFilesOf(directory), [], 'no temp file is left');
});

t.test('a switch with a changed non-data byte, a wrong hash, a wrong range, a stale target or a bad path is refused and changes nothing', async (t) => {
  const directory = await buildRedactionDatabase(t);
  const dbPath = join(directory, 'db');
  const engine = await openEngine(directory);
  const before = storedEvents(engine);
  const files = chunkFilesOf(directory);
  const [event] = completedEvents(engine, 1);
  const position = engine.eventPositions(event.streamName, event.eventNumber)[0];
  const target = position.chunkFileName;
  const otherChunk = files.find((name) => name !== target && !name.startsWith(files[files.length - 1].slice(0, 12)))!;
  const hold = engine.takeChunkSwitchLock('redaction');

  const copy = async (name: string, damage?: (bytes: Buffer) => void) => {
    const temp = join(dbPath, name);
    await writeRedactedCopy(join(dbPath, target), temp, [{ event: event, fileOffset: position.fileOffset }]);
    if (damage) {
      const bytes = readFileSync(temp);
      damage(bytes);
      writeFileSync(temp, bytes);
    }
    return temp;
  };
  const rehash = (bytes: Buffer) => createHash('md5').update(bytes.subarray(0, bytes.length - 16)).digest().copy(bytes, bytes.length - 16);
  const refused = async (label: string, targetName: string, temp: string, code = Errors.storageReplacementInvalid.code) => {
    await t.rejects(engine.switchRedactedChunk(targetName, temp, hold), { code }, `${label} is refused`);
  };

  await refused('a changed metadata byte (checksums and hash fixed)', target, await copy('meta.redact.tmp', (bytes) => {
    const layout = eventFrameLayout(bytes, position.fileOffset)!;
    const metadataAt = position.fileOffset + layout.dataOffset + layout.dataLength + 4;
    bytes[metadataAt] ^= 0x01;
    resealFrame(bytes, position.fileOffset);
    rehash(bytes);
  }));
  await refused('a changed byte of another record (hash fixed)', target, await copy('other.redact.tmp', (bytes) => {
    bytes[128 + 20] ^= 0x01;
    rehash(bytes);
  }));
  await refused('a wrong hash', target, await copy('hash.redact.tmp', (bytes) => {
    bytes[bytes.length - 1] ^= 0xff;
  }));
  await refused('a wrong range (another chunk as target)', otherChunk, await copy('range.redact.tmp'));
  await refused('a target that is not the active file', target.replace(/\.000000$/, '.000007'), await copy('stale.redact.tmp'));
  const outside = join(directory, 'outside.tmp');
  copyFileSync(await copy('moved.redact.tmp'), outside);
  await refused('a file outside the database directory', target, outside);
  const notTemp = join(dbPath, 'copy-of-chunk');
  copyFileSync(join(dbPath, 'moved.redact.tmp'), notTemp);
  await refused('a file without .tmp', target, notTemp);

  t.same(chunkFilesOf(directory), files, 'the chunk files are as they were');
  t.same(storedEvents(engine), before, 'and so is every event');
  t.equal(engine.status().chunkReplacements, 0);
  engine.releaseChunkSwitchLock(hold);
  await t.rejects(engine.switchRedactedChunk(target, await copy('late.redact.tmp'), hold), { code: Errors.redactRequestInvalid.code }, 'a released hold switches nothing');
});

t.test('the chunk-switch lock: a scavenge holding it refuses a redaction, and the reverse', async (t) => {
  const directory = await buildRedactionDatabase(t);
  const engine = await openEngine(directory);
  const scavenge = engine.takeChunkSwitchLock('scavenge');
  t.throws(() => engine.takeChunkSwitchLock('redaction'), { code: Errors.chunkSwitchLocked.code, details: { holderKind: 'scavenge' } }, 'redaction refused while a scavenge holds it');
  t.equal(engine.chunkSwitchHolder()?.kind, 'scavenge', 'the lock reports its holder');
  t.ok(engine.releaseChunkSwitchLock(scavenge));
  const redaction = engine.takeChunkSwitchLock('redaction');
  t.throws(() => engine.takeChunkSwitchLock('scavenge'), { code: Errors.chunkSwitchLocked.code, details: { holderKind: 'redaction' } }, 'a scavenge refused while a redaction holds it');
  await t.rejects(engine.rewriteChunks(0, 0, () => true), { code: Errors.chunkSwitchLocked.code }, 'a chunk rewrite without the hold is refused');
  t.same(tempFilesOf(directory).filter((name) => !name.includes('.rewrite.')), [], 'no redaction temp file');
  engine.releaseChunkSwitchLock(redaction);
  await engine.rewriteChunks(0, 0, () => true);
  t.equal(engine.chunkSwitchHolder(), undefined, 'a rewrite without a hold releases the lock it took');
});

t.test('a redacted copy that blanks a metadata event is refused: the stream keeps its metadata', async (t) => {
  const directory = tempDirectory(t);
  const dbPath = join(directory, 'db');
  const engine = await openEngine(directory);
  const metadata = { $maxCount: 50, $acl: { $r: ['ops'] } };
  await engine.append('$$orders-1', -2, [{ eventId: randomUUID(), eventType: '$metadata', isJson: true, data: Buffer.from(JSON.stringify(metadata)), metadata: Buffer.alloc(0) }]);
  await appendUntilChunks(engine, 'filler', 2);
  const [position] = engine.eventPositions('$$orders-1', 0);
  t.ok(position.isCompleted, 'the metadata event lies in a completed chunk');
  const files = chunkFilesOf(directory);
  const hold = engine.takeChunkSwitchLock('redaction');
  const temp = join(dbPath, 'metadata.redact.tmp');
  await writeRedactedCopy(join(dbPath, position.chunkFileName), temp, [{ event: { streamName: '$$orders-1', eventNumber: 0 }, fileOffset: position.fileOffset }]);
  await t.rejects(engine.switchRedactedChunk(position.chunkFileName, temp, hold), { code: Errors.storageReplacementInvalid.code, message: /metadata of a stream/ }, 'the switch is refused');
  engine.releaseChunkSwitchLock(hold);
  t.same(chunkFilesOf(directory), files, 'the chunk files are as they were');
  t.match(engine.getStreamMetadata('orders-1').metadata, { maxCount: 50 }, 'the stream keeps its metadata');
  await engine.close();
});

t.test('a redacted copy is the chunk with only the listed records redacted and a hash that holds; an existing file is never overwritten', async (t) => {
  const directory = await buildRedactionDatabase(t);
  const dbPath = join(directory, 'db');
  const engine = await openEngine(directory);
  const targets = completedEvents(engine, 6);
  const positions = targets.map((event) => ({ event, position: engine.eventPositions(event.streamName, event.eventNumber)[0] }));
  const chunkFile = positions[0].position.chunkFileName;
  const records = positions.filter(({ position }) => position.chunkFileName === chunkFile).map(({ event, position }) => ({ event, fileOffset: position.fileOffset }));
  await engine.close();

  const source = readFileSync(join(dbPath, chunkFile));
  const expected = Buffer.from(source);
  for (const { fileOffset } of records) t.ok(redactFrame(expected, fileOffset), `the record at ${fileOffset} is redacted in the expected bytes`);
  createHash('md5').update(expected.subarray(0, expected.length - 16)).digest().copy(expected, expected.length - 16);
  const temp = join(dbPath, 'copy.redact.tmp');
  t.equal(await writeRedactedCopy(join(dbPath, chunkFile), temp, records), records.length, `${records.length} records redacted`);
  t.ok(readFileSync(temp).equals(expected), 'the copy holds exactly the expected bytes, hash included');
  t.ok(readFileSync(join(dbPath, chunkFile)).equals(source), 'the chunk itself is untouched');

  writeFileSync(temp, 'not ours');
  await t.rejects(writeRedactedCopy(join(dbPath, chunkFile), temp, records), { code: 'EEXIST' }, 'a copy onto an existing file is refused');
  t.equal(readFileSync(temp, 'utf8'), 'not ours', 'and leaves that file as it was');
});
