/**
 * The log appender on its own, as a follower will drive it: submissions of raw records, no
 * streams. Real chunk files and a real writer.chk; faults only through the write-fault helper.
 */
import t, { type Test } from 'tap';
import pino from 'pino';
import { Errors } from '../../src/common/errors.js';
import { LogAppender, type AppendPlan, type AppendPlanner, type AppendUnit } from '../../src/storage/log/appender.js';
import { Checkpoint } from '../../src/storage/log/checkpoint.js';
import { RecordKind, SystemKind, encodeSystemRecord } from '../../src/storage/log/record.js';
import { TransactionLog } from '../../src/storage/log/transaction-log.js';
import { CheckpointName } from '../../src/storage/layout.js';
import { readCheckpointFile } from '../helpers/checkpoint-files.js';
import { tempDirectory } from '../helpers/engine.js';
import { injectWriteFaults } from '../helpers/write-faults.js';

const CHUNK_BYTES = 64 * 1024;
const TIMESTAMP = 1_700_000_000_000;

/** Raw records to write one after the other, or a request to complete the chunk. */
type Raw = { payloads: Buffer[] } | 'completeChunk';

/** Where the records of a submission went. */
interface Placed {
  position: number;
}

/** System records with the given payloads, encoded at whatever position the appender gives. */
class RawRecords implements AppendUnit {
  readonly framedBytes: number;
  readonly positions: number[] = [];

  constructor(readonly payloads: Buffer[]) {
    this.framedBytes = payloads.reduce((total, payload) => total + encodeSystemRecord(0, TIMESTAMP, SystemKind.epoch, payload).length, 0);
  }

  encode(target: Buffer, offset: number, position: number): number {
    let written = 0;
    for (const payload of this.payloads) {
      this.positions.push(position + written);
      written += encodeSystemRecord(position + written, TIMESTAMP, SystemKind.epoch, payload).copy(target, offset + written);
    }
    return written;
  }
}

/** Writes every submission as it is, and keeps what the appender told it. */
class RawPlanner implements AppendPlanner<Raw, Placed, RawRecords> {
  commits = 0;
  open = false;
  readonly rolledBackUnits: RawRecords[] = [];

  beginCommit(): void {
    this.commits++;
    this.open = true;
  }

  plan(submission: Raw): AppendPlan<Placed, RawRecords> {
    if (submission === 'completeChunk') return { kind: 'completeChunk', answer: (position) => ({ position }) };
    return { kind: 'write', units: [new RawRecords(submission.payloads)], result: { position: -1 } };
  }

  encoded(_submission: Raw, result: Placed, units: RawRecords[]): void {
    result.position = units[0].positions[0];
  }

  rolledBack(_submission: Raw, units: RawRecords[]): void {
    this.rolledBackUnits.push(...units);
  }

  endCommit(): void {
    this.open = false;
  }
}

interface Harness {
  directory: string;
  log: TransactionLog;
  checkpoint: Checkpoint;
  planner: RawPlanner;
  appender: LogAppender<Raw, Placed, RawRecords>;
  /** The units of each commit made durable, and the end position it gave. */
  durable: Array<{ units: RawRecords[]; end: number }>;
}

const silent = pino({ level: 'silent' });

function openLog(directory: string, writerCheckpoint: number): Promise<TransactionLog> {
  return TransactionLog.open({ dbPath: directory, chunkSizeBytes: CHUNK_BYTES, cachedChunksMax: 2, logger: silent }, writerCheckpoint);
}

async function open(t: Test): Promise<Harness> {
  const directory = tempDirectory(t);
  const checkpoint = Checkpoint.open(directory, CheckpointName.writer, 0, true);
  const log = await openLog(directory, checkpoint.value);
  const planner = new RawPlanner();
  const durable: Harness['durable'] = [];
  const appender = new LogAppender<Raw, Placed, RawRecords>(log, checkpoint, planner, (units, end) => {
    durable.push({ units, end });
    log.publish(end);
  }, (error) => t.fail(`the appender stopped: ${error.message}`));
  t.teardown(async () => {
    await appender.drained();
    await log.close();
    await checkpoint.close();
  });
  return { directory, log, checkpoint, planner, appender, durable };
}

function payload(label: string, bytes = 0): Buffer {
  return Buffer.from(JSON.stringify({ label, pad: 'p'.repeat(bytes) }));
}

/** The payload of the system record at `position`. */
function payloadAt(log: TransactionLog, position: number): string {
  const record = log.readRecord(position);
  if (record.kind !== RecordKind.system) throw new Error(`an event record at ${position}`);
  return record.data.toString();
}

function writerCheckpointFile(directory: string): number {
  return readCheckpointFile(directory, CheckpointName.writer);
}

t.test('submissions queued together go in one group commit, durable in order, writer.chk after them', async (t) => {
  const { directory, log, checkpoint, planner, appender, durable } = await open(t);
  const payloads = Array.from({ length: 10 }, (_, i) => payload(`record-${i}`));
  const placed = await Promise.all(payloads.map((one) => appender.submit({ payloads: [one] })));
  t.equal(planner.commits, 1, 'one commit');
  t.equal(appender.flushMeter.flushes, 1, 'one flush');
  t.equal(planner.open, false, 'the planner heard the commit end');
  t.equal(durable.length, 1, 'handed over once');
  t.same(durable[0].units.map((unit) => unit.positions[0]), placed.map((one) => one.position), 'in submission order');
  t.equal(placed[0].position, 0, 'from the start of the log');
  for (let i = 1; i < placed.length; i++) {
    t.equal(placed[i].position, placed[i - 1].position + durable[0].units[i - 1].framedBytes, `record ${i} follows record ${i - 1}`);
  }
  const end = placed[9].position + durable[0].units[9].framedBytes;
  t.same([durable[0].end, log.writerPosition, checkpoint.value, writerCheckpointFile(directory)], [end, end, end, end],
    'the commit ends at the end of its records, and so do the writer position and writer.chk on disk');
  t.same(placed.map((one) => payloadAt(log, one.position)), payloads.map(String), 'every record reads back');
});

t.test('a commit that fills the chunk goes on in the next; a chunk completion closes the ongoing chunk', async (t) => {
  const { log, appender, durable, checkpoint } = await open(t);
  const payloads = Array.from({ length: 10 }, (_, i) => payload(`large-${i}`, 10_000));
  const placed = await Promise.all(payloads.map((one, i) => appender.submit({ payloads: [one, payload(`${i}-tail`)] })));
  t.equal(appender.flushMeter.flushes, 2, 'one flush per chunk');
  const second = placed.findIndex((one) => one.position >= CHUNK_BYTES);
  t.ok(second > 0, 'the records went into two chunks');
  t.equal(placed[second].position, CHUNK_BYTES, 'the first submission that did not fit starts the next chunk');
  t.ok(log.chunkAt(0)?.isCompleted, 'the full chunk was completed');
  t.same(placed.map((one) => payloadAt(log, one.position)), payloads.map(String), 'every record reads back');
  t.equal(durable.length, 1, 'handed over once, after both segments were durable');

  const next = await appender.submit('completeChunk');
  t.same(next, { position: 2 * CHUNK_BYTES }, 'the answer is where the next chunk begins');
  t.ok(log.chunkAt(1)?.isCompleted, 'the ongoing chunk was completed');
  t.same([log.writerPosition, checkpoint.value], [2 * CHUNK_BYTES, 2 * CHUNK_BYTES], 'writer.chk moved to the next chunk');
  t.equal((await appender.submit('completeChunk')).position, 2 * CHUNK_BYTES, 'an empty ongoing chunk is left as it is');
  t.equal(log.chunkCount, 3);
});

t.test('a full disk refuses the commit, rolls the log back to writer.chk, and the appender goes on', async (t) => {
  const { directory, log, checkpoint, planner, appender, durable } = await open(t);
  const kept = await appender.submit({ payloads: [payload('kept')] });
  const durableEnd = checkpoint.value;
  const injector = injectWriteFaults(t);
  injector.arm({ failAt: 1, fault: 'enospc', persistent: true });
  const refused = await Promise.allSettled([1, 2, 3].map((i) => appender.submit({ payloads: [payload(`refused-${i}`)] })));
  t.ok(injector.injected > 0, 'a write failed');
  t.same(refused.map((one) => one.status === 'rejected' && Errors.storageDiskFull.is(one.reason)), [true, true, true], 'every submission of the commit is refused with a full disk');
  t.equal(planner.rolledBackUnits.length, 3, 'the planner heard of each rollback');
  t.same([log.writerPosition, checkpoint.value, log.readableEnd, durable.length], [durableEnd, durableEnd, durableEnd, 1], 'nothing past writer.chk');
  t.equal(appender.flushMeter.refusedCount, 1);

  injector.freeSpace();
  const after = await appender.submit({ payloads: [payload('after')] });
  t.equal(after.position, durableEnd, 'the next write takes the place of the refused ones');
  await appender.drained();
  await log.close();
  const reopened = await openLog(directory, writerCheckpointFile(directory));
  t.teardown(() => reopened.close());
  reopened.publish(reopened.writerPosition);
  const found: string[] = [];
  reopened.scan(0, reopened.writerPosition, (_buffer, _offset, position) => found.push(payloadAt(reopened, position)));
  t.same(found, [String(payload('kept')), String(payload('after'))], 'after a reopen the log holds the kept writes and nothing of the refused ones');
  t.equal(kept.position, 0);
});

// Regression: a write cut short by a full disk left whole refused records past the data, and the
// rollback, finding the data unchanged, left them there. A shorter write at the same position then
// put a refused record exactly where the log goes on, and recovery, which walks past writer.chk,
// took it into the log.
t.test('records a full disk cut short are wiped: a later write of the same size at their place never brings them back', async (t) => {
  const { directory, log, checkpoint, appender } = await open(t);
  await appender.submit({ payloads: [payload('kept-0001')] });
  const durableEnd = checkpoint.value;
  const injector = injectWriteFaults(t);
  // Half of the commit's bytes reach the file: the two small records whole, the large one not.
  injector.arm({ failAt: 1, fault: 'short' });
  const refused = await Promise.allSettled([
    appender.submit({ payloads: [payload('refused-1')] }),
    appender.submit({ payloads: [payload('refused-2')] }),
    appender.submit({ payloads: [payload('refused-3', 4000)] }),
  ]);
  t.same(refused.map((one) => one.status), ['rejected', 'rejected', 'rejected'], 'the commit is refused');
  injector.restore();
  const written = await appender.submit({ payloads: [payload('written-1')] });
  t.equal(written.position, durableEnd, 'the next write, as long as the first refused record, takes its place');
  await appender.drained();
  await log.close();
  await checkpoint.close();
  const reopened = await openLog(directory, writerCheckpointFile(directory));
  t.teardown(() => reopened.close());
  reopened.publish(reopened.writerPosition);
  const found: string[] = [];
  reopened.scan(0, reopened.writerPosition, (_buffer, _offset, position) => found.push(payloadAt(reopened, position)));
  t.same(found, [String(payload('kept-0001')), String(payload('written-1'))], 'the refused records past it are gone after a reopen');
});

t.test('a commit moves writer.chk on without an fsync of it; a chunk switch flushes it', async (t) => {
  const { directory, checkpoint, appender } = await open(t);
  await appender.submit({ payloads: [payload('one')] });
  t.ok(checkpoint.value > 0, 'the commit moved writer.chk');
  t.equal(writerCheckpointFile(directory), checkpoint.value, 'the file holds the new end at once');
  t.equal(checkpoint.flushedValue, 0, 'but it is not fsynced by the commit');
  await appender.submit('completeChunk');
  t.equal(checkpoint.flushedValue, CHUNK_BYTES, 'a chunk switch makes writer.chk durable at the next chunk');
});
