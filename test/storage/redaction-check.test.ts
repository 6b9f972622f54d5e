import t from 'tap';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Errors } from '../../src/common/errors.js';
import { RedactionService } from '../../src/daemon/redaction/redaction-service.js';
import { writeRedactedCopies, writeRedactedCopy, type ChunkToCopy } from '../../src/maint/redact/chunk-copy.js';
import type { EventReference } from '../../src/maint/redact/events-list.js';
import type { Engine } from '../../src/storage/engine.js';
import { eventFrameLayout, resealFrame } from '../../src/storage/log/record.js';
import type { CheckedCopy } from '../../src/storage/maintenance/redacted-chunk-check.js';
import { openEngine } from '../helpers/engine.js';
import { buildRedactionDatabase, checkConsistent, chunkFilesOf, completedEvents, storedEvents, tempFilesOf } from '../helpers/redaction.js';
import pino from 'pino';

/**
 * Copies checked before their hashes are written (what `svcdb redact` does: the node reads the
 * copies while the redactor hashes them): up to four in one pass, each judged on its own; the
 * switch then takes the check's finding, and refuses a copy whose hash was not written for the
 * contents checked, or that was changed or replaced after its check.
 */

/** The listed events grouped by the chunk file that holds them, at most `chunks` chunks. */
function copiesOf(engine: Engine, dbPath: string, events: readonly EventReference[], chunks: number, suffix = 'redact.tmp'): Array<ChunkToCopy & { chunkFile: string }> {
  const byChunk = new Map<string, ChunkToCopy & { chunkFile: string }>();
  for (const event of events) {
    const [position] = engine.eventPositions(event.streamName, event.eventNumber);
    if (!byChunk.has(position.chunkFileName) && byChunk.size === chunks) continue;
    const copy = byChunk.get(position.chunkFileName) ?? {
      chunkFile: position.chunkFileName, sourcePath: join(dbPath, position.chunkFileName), tempPath: join(dbPath, `${position.chunkFileName}.${suffix}`), records: [],
    };
    byChunk.set(position.chunkFileName, { ...copy, records: [...copy.records, { event, fileOffset: position.fileOffset }] });
  }
  return [...byChunk.values()];
}

const replacedFilesOf = (directory: string) => readdirSync(join(directory, 'db')).filter((name) => name.startsWith('replaced-')).sort();

/** Waits until the engine has deleted the replaced files it deletes in the background (the test's timeout bounds it). */
async function untilNoReplacedFiles(directory: string): Promise<void> {
  while (replacedFilesOf(directory).length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
}

const rehash = (bytes: Buffer) => createHash('md5').update(bytes.subarray(0, bytes.length - 16)).digest().copy(bytes, bytes.length - 16);

function damage(path: string, change: (bytes: Buffer) => void): void {
  const bytes = readFileSync(path);
  change(bytes);
  writeFileSync(path, bytes);
}

t.test('four copies checked while they are hashed switch in, and redact exactly the listed events', async (t) => {
  const directory = await buildRedactionDatabase(t, 700);
  const dbPath = join(directory, 'db');
  const engine = await openEngine(directory);
  const before = storedEvents(engine);
  const copies = copiesOf(engine, dbPath, completedEvents(engine, 6), 4);
  t.equal(copies.length, 4, 'the events lie in four chunks');
  const hold = engine.takeChunkSwitchLock('redaction');
  let checking: Promise<Array<CheckedCopy | Error>> | undefined;
  const changed = await writeRedactedCopies(copies, async (tempPaths) => {
    t.same(tempPaths, copies.map(({ tempPath }) => tempPath), 'the node hears of every copy made');
    checking = engine.checkRedactedCopies(copies.map(({ chunkFile, tempPath }) => ({ targetFileName: chunkFile, tempPath })), hold);
    await checking;
  });
  t.same(changed, copies.map(({ records }) => records.length), 'each copy changed its listed records');
  const found = await checking!;
  t.ok(found.every((result) => !(result instanceof Error)), 'every copy passed the check');
  for (const [index, { chunkFile, tempPath }] of copies.entries()) {
    await engine.switchRedactedChunk(chunkFile, tempPath, hold, undefined, found[index] as CheckedCopy);
  }
  const replaced = copies.map(({ chunkFile }) => `replaced-${chunkFile}`).sort();
  t.same(replacedFilesOf(directory), replaced, 'while the lock is held, the replaced files wait, renamed');
  t.notOk(chunkFilesOf(directory).some((name) => copies.some(({ chunkFile }) => chunkFile === name)), 'no listing of chunk files shows them');
  engine.releaseChunkSwitchLock(hold);
  await untilNoReplacedFiles(directory);
  t.pass('once the lock is released they are deleted, the engine still open');
  const targets = copies.flatMap(({ records }) => records.map(({ event }) => event));
  t.equal(checkConsistent(t, 'after the switches', engine, before, targets), targets.length, 'every listed event is redacted, nothing else changed');
  await engine.close();
  const reopened = await openEngine(directory);
  t.equal(checkConsistent(t, 'after a restart that verified every chunk hash', reopened, before, targets), targets.length);
  t.same(tempFilesOf(directory), [], 'no temp file is left');
  await reopened.close();
});

t.test("the next check deletes the previous batch's replaced files: a long redaction keeps one batch of them at most", async (t) => {
  const directory = await buildRedactionDatabase(t, 700);
  const dbPath = join(directory, 'db');
  const engine = await openEngine(directory);
  const [first, second] = copiesOf(engine, dbPath, completedEvents(engine, 6), 2);
  const hold = engine.takeChunkSwitchLock('redaction');
  await writeRedactedCopy(first.sourcePath, first.tempPath, first.records);
  await engine.switchRedactedChunk(first.chunkFile, first.tempPath, hold);
  t.same(replacedFilesOf(directory), [`replaced-${first.chunkFile}`], 'the first batch switched, its replaced file waits');
  await writeRedactedCopy(second.sourcePath, second.tempPath, second.records);
  const [checked] = await engine.checkRedactedCopies([{ targetFileName: second.chunkFile, tempPath: second.tempPath }], hold);
  t.notOk(checked instanceof Error, 'the second batch passes its check');
  await untilNoReplacedFiles(directory);
  t.pass('the first batch\'s replaced file is deleted once the next check starts');
  await engine.switchRedactedChunk(second.chunkFile, second.tempPath, hold, undefined, checked as CheckedCopy);
  t.same(replacedFilesOf(directory), [`replaced-${second.chunkFile}`], 'the second batch\'s waits in turn');
  await engine.close();
  t.same(replacedFilesOf(directory), [], 'and closing the engine deletes it, the lock still held');
});

t.test('each copy of a check is judged on its own; a change after the check, a replaced file or a wrong hash is refused at the switch', async (t) => {
  const directory = await buildRedactionDatabase(t, 700);
  const dbPath = join(directory, 'db');
  const engine = await openEngine(directory);
  const before = storedEvents(engine);
  const files = chunkFilesOf(directory);
  const copies = copiesOf(engine, dbPath, completedEvents(engine, 6), 4);
  const hold = engine.takeChunkSwitchLock('redaction');
  for (const { sourcePath, tempPath, records } of copies) await writeRedactedCopy(sourcePath, tempPath, records);
  const [first, second, third, fourth] = copies;
  // Damaged before the check: a metadata byte of a redacted record, checksum and hash made to fit.
  damage(second.tempPath, (bytes) => {
    const at = second.records[0].fileOffset;
    const layout = eventFrameLayout(bytes, at)!;
    bytes[at + layout.dataOffset + layout.dataLength + 4] ^= 0x01;
    resealFrame(bytes, at);
    rehash(bytes);
  });
  const found = await engine.checkRedactedCopies(copies.map(({ chunkFile, tempPath }) => ({ targetFileName: chunkFile, tempPath })), hold);
  t.match(found[1], { code: Errors.storageReplacementInvalid.code, message: /more than a redaction/ }, 'the damaged copy is refused by the check');
  t.ok([found[0], found[2], found[3]].every((result) => !(result instanceof Error)), 'the other three pass it');

  // After the check: a byte of another record changed, the hash made to fit the new contents.
  damage(first.tempPath, (bytes) => {
    bytes[128 + 20] ^= 0x01;
    rehash(bytes);
  });
  await t.rejects(engine.switchRedactedChunk(first.chunkFile, first.tempPath, hold, undefined, found[0] as CheckedCopy),
    { code: Errors.storageReplacementInvalid.code, message: /hash does not match/ }, 'a copy changed after its check is refused');
  await t.rejects(engine.switchRedactedChunk(second.chunkFile, second.tempPath, hold), { code: Errors.storageReplacementInvalid.code }, 'the damaged copy is refused when checked again');
  // Replaced by another file with the same bytes: not the file that was checked.
  const spare = `${third.tempPath}.spare.tmp`;
  await writeRedactedCopy(third.sourcePath, spare, third.records);
  renameSync(spare, third.tempPath);
  await t.rejects(engine.switchRedactedChunk(third.chunkFile, third.tempPath, hold, undefined, found[2] as CheckedCopy),
    { code: Errors.storageReplacementInvalid.code, message: /not the file that was checked/ }, 'a copy replaced after its check is refused');
  damage(fourth.tempPath, (bytes) => {
    bytes[bytes.length - 1] ^= 0xff;
  });
  await t.rejects(engine.switchRedactedChunk(fourth.chunkFile, fourth.tempPath, hold, undefined, found[3] as CheckedCopy),
    { code: Errors.storageReplacementInvalid.code, message: /hash does not match/ }, 'a wrong hash written after the check is refused');
  await t.rejects(engine.switchRedactedChunk(first.chunkFile, fourth.tempPath, hold, undefined, found[3] as CheckedCopy),
    { code: Errors.storageReplacementInvalid.code }, 'a finding for another target is refused');

  t.same(chunkFilesOf(directory).filter((name) => !name.endsWith('.tmp')), files, 'the chunk files are as they were');
  t.same(storedEvents(engine), before, 'and so is every event');
  t.equal(engine.status().chunkReplacements, 0);
  await t.rejects(engine.checkRedactedCopies([{ targetFileName: first.chunkFile, tempPath: first.tempPath }], hold, () => new Error('stopped')), /stopped/, 'a check told to stop ends with that error');
  engine.releaseChunkSwitchLock(hold);
  await engine.close();
});

t.test('the service: check requests are refused by name, count and lock, and a check ends with its lock', async (t) => {
  const directory = await buildRedactionDatabase(t, 700);
  const dbPath = join(directory, 'db');
  const engine = await openEngine(directory);
  const service = new RedactionService(engine, dbPath, pino({ level: 'silent' }));
  const copies = copiesOf(engine, dbPath, completedEvents(engine, 6), 4);
  const lockId = service.lock(1);
  for (const { sourcePath, tempPath, records } of copies) await writeRedactedCopy(sourcePath, tempPath, records);
  const request = copies.map(({ chunkFile, tempPath }) => ({ targetChunkFile: chunkFile, newChunkFile: tempPath.slice(dbPath.length + 1) }));
  const invalid = { code: Errors.redactRequestInvalid.code };
  t.throws(() => service.check(lockId, []), invalid, 'no copy');
  t.throws(() => service.check(lockId, [...request, request[0]]), invalid, 'five copies');
  t.throws(() => service.check('no-such-lock', request), invalid, 'a lock not held');
  t.throws(() => service.check(lockId, [{ targetChunkFile: copies[0].chunkFile, newChunkFile: '../outside.tmp' }]), { code: Errors.storageReplacementInvalid.code }, 'a path');
  t.throws(() => service.check(lockId, [{ targetChunkFile: copies[0].chunkFile, newChunkFile: 'copy-of-chunk' }]), { code: Errors.storageReplacementInvalid.code }, 'a name without .tmp');
  t.throws(() => service.check(lockId, [{ targetChunkFile: 'chunk-000099.000000', newChunkFile: request[0].newChunkFile }]), { code: Errors.storageReplacementInvalid.code }, 'a target that is not an active chunk');
  t.same(service.check(lockId, request), request.map(({ newChunkFile }) => newChunkFile), 'four copies are being checked');
  t.ok(await service.release(lockId), 'the lock is released while they are checked');
  t.same(tempFilesOf(directory), [], 'the copies are deleted');
  const again = service.lock(1);
  await t.rejects(service.switchChunk(again, request[0].targetChunkFile, request[0].newChunkFile), { code: Errors.storageReplacementInvalid.code }, 'a copy gone with its lock is not switched');
  await service.release(again);
  t.equal(engine.status().chunkReplacements, 0, 'nothing was switched');
  await engine.close();
});
