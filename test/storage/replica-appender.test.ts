/**
 * A replica's log appender driven with a leader's bytes, in-process: record frames handed over
 * one after the other without waiting share group commits (one fsync for many of the leader's
 * commits), land byte for byte at the leader's positions, and are served once durable. A frame
 * that does not follow the log is refused with those queued behind it; those before it stay.
 */
import t, { type Test } from 'tap';
import { Errors } from '../../src/common/errors.js';
import type { Engine } from '../../src/storage/engine.js';
import { checkFrame } from '../../src/storage/log/record.js';
import { CheckpointName } from '../../src/storage/layout.js';
import { ExpectedVersion } from '../../src/storage/streams/stream-metadata.js';
import { readCheckpointFile, writeCheckpointFile } from '../helpers/checkpoint-files.js';
import { SMALL, engineOptions, newEvent, openEngine, tempDirectory } from '../helpers/engine.js';

const COMMITS = 40;

interface RecordFrame {
  position: number;
  bytes: Buffer;
}

/** A leader that made one commit per event; its chunk header and its records, one frame each. */
async function leaderLog(t: Test): Promise<{ leader: Engine; header: Buffer; frames: RecordFrame[]; ids: string[] }> {
  const leader = await openEngine(tempDirectory(t));
  const ids: string[] = [];
  for (let i = 0; i < COMMITS; i++) {
    const event = newEvent();
    ids.push(event.eventId);
    await leader.append('followed', ExpectedVersion.any, [event]);
  }
  const bytes = leader.logBytes();
  const all = await bytes.records(0, 16 * 1024 * 1024);
  const frames: RecordFrame[] = [];
  for (let offset = 0; offset < all.length;) {
    const { framedLength, problem } = checkFrame(all, offset, all.length);
    if (problem) throw new Error(`the leader's record at ${offset} is not sound: ${problem}`);
    frames.push({ position: offset, bytes: all.subarray(offset, offset + framedLength) });
    offset += framedLength;
  }
  return { leader, header: bytes.headerBytes(0), frames, ids };
}

function writerCheckpointFile(directory: string): number {
  return readCheckpointFile(engineOptions(directory).dbPath, CheckpointName.writer);
}

t.test('record frames handed over without waiting share group commits and end as the leader wrote them', async (t) => {
  const { leader, header, frames, ids } = await leaderLog(t);
  t.ok(frames.length > COMMITS, `the leader wrote ${frames.length} records: an epoch and ${COMMITS} events`);
  const directory = tempDirectory(t);
  const replica = await openEngine(directory, { replica: true });
  const appender = replica.replicaAppender();
  await appender.adoptHeader(header);

  await Promise.all(frames.map((frame) => appender.appendRecords(frame.position, frame.bytes)));
  const end = frames.at(-1)!.position + frames.at(-1)!.bytes.length;
  const commits = replica.stats().flushes.count;
  t.ok(commits < frames.length / 4, `${frames.length} frames took ${commits} group commits, not one each`);
  t.equal(writerCheckpointFile(directory), end, 'writer.chk is at the end of the last frame');
  t.equal(replica.status().readableEnd, end, 'and all of it is readable');
  t.same(replica.readStreamForward('followed', 0, COMMITS + 1).events.map((event) => event.eventId), ids, 'the replica serves every event, in order');
  t.same(await replica.logBytes().records(0, end), await leader.logBytes().records(0, end), 'its records are the leader\'s bytes');
});

t.test('a frame that does not follow the log is refused with the frames behind it; the ones before it stay', async (t) => {
  const { header, frames } = await leaderLog(t);
  const directory = tempDirectory(t);
  const replica = await openEngine(directory, { replica: true });
  const appender = replica.replicaAppender();
  await appender.adoptHeader(header);

  const kept = frames.slice(0, 10);
  const misplaced = frames[11];
  const results = await Promise.allSettled([
    ...kept.map((frame) => appender.appendRecords(frame.position, frame.bytes)),
    appender.appendRecords(misplaced.position, misplaced.bytes),
    appender.appendRecords(frames[12].position, frames[12].bytes),
  ]);
  t.same(results.slice(0, 10).map((result) => result.status), kept.map(() => 'fulfilled'), 'the frames before the gap are written');
  const refused = results.slice(10);
  t.same(refused.map((result) => result.status), ['rejected', 'rejected'], 'the misplaced frame and the one queued behind it are refused');
  t.ok(refused.every((result) => result.status === 'rejected' && Errors.replicationProtocol.is(result.reason)), 'as a replication protocol error');
  const end = kept.at(-1)!.position + kept.at(-1)!.bytes.length;
  t.equal(writerCheckpointFile(directory), end, 'writer.chk stays at the end of the last frame that followed the log');
  t.equal(replica.status().readableEnd, end, 'and readable up to there');
});

t.test('a completed chunk installed from the leader names its epoch before writer.chk covers it', async (t) => {
  const leader = await openEngine(tempDirectory(t));
  while (leader.status().readableEnd < SMALL.chunkSizeBytes) await leader.append('filler', ExpectedVersion.any, [newEvent('Filler', { pad: 'x'.repeat(2000) })]);
  const bytes = leader.logBytes();
  const file = bytes.openChunkFile(0);
  const content = Buffer.alloc(file.facts.fileBytes);
  await file.read(content, 0);

  const directory = tempDirectory(t);
  const { dbPath } = engineOptions(directory);
  const replica = await openEngine(directory, { replica: true });
  const incoming = await replica.replicaAppender().receiveChunkFile(0, file.facts.version);
  await incoming.write(content);
  await incoming.install();
  t.equal(readCheckpointFile(dbPath, CheckpointName.epoch), 0, 'the leader\'s first epoch, at 0, is noted');
  const end = readCheckpointFile(dbPath, CheckpointName.writer);
  t.ok(end >= SMALL.chunkSizeBytes, `writer.chk covers the chunk (${end})`);
  await replica.close();

  // A kill after the epoch was noted and before writer.chk moved leaves this.
  writeCheckpointFile(dbPath, CheckpointName.writer, 0);
  const reopened = await openEngine(directory, { replica: true });
  t.equal(reopened.status().readableEnd, end, 'the reopened replica keeps the whole chunk');
  t.equal(readCheckpointFile(dbPath, CheckpointName.epoch), 0, 'and its epoch');
});
