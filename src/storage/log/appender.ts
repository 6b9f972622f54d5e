import { performance } from 'node:perf_hooks';
import { Errors, type SvcError } from '../../common/errors.js';
import type { Checkpoint } from './checkpoint.js';
import type { TransactionLog } from './transaction-log.js';
import { FlushMeter, QueueMeter } from './meters.js';
import { isTransientStorageError } from '../disk/file-write.js';

/**
 * Records of one submission that go into the log together, one after the other, in one chunk.
 * The appender gives it room in the chunk's memory and a log position; what the bytes are is the
 * unit's business (event records of a stream write, or the bytes of a leader's log).
 */
export interface AppendUnit {
  /** Exactly the bytes `encode` writes. */
  readonly framedBytes: number;
  /**
   * Writes the records at `target[offset…]`, the first at log position `position`, and returns
   * how many bytes it wrote.
   */
  encode(target: Buffer, offset: number, position: number): number;
}

/** What becomes of one submission, decided by the planner in commit order. */
export type AppendPlan<R, U extends AppendUnit> =
  /** Refused with `error`: nothing is written. */
  | { readonly kind: 'refuse'; readonly error: Error }
  /** Answered now with `result`, nothing written (a repeat of a durable write, say). */
  | { readonly kind: 'answer'; readonly result: R }
  /**
   * Answered with `result` once this commit is durable up to `position`, nothing written: a
   * repeat of a write made earlier in this very commit, at `position`.
   */
  | { readonly kind: 'answerWhenDurable'; readonly result: R; readonly position: number }
  /** `units` are written; `result` is the answer once they are durable (see AppendPlanner.encoded). */
  | { readonly kind: 'write'; readonly units: U[]; readonly result: R }
  /**
   * Completes the ongoing chunk after what is written before it; the answer is `answer(position)`
   * with the position the next chunk begins at (or the ongoing one's start when it is empty).
   */
  | { readonly kind: 'completeChunk'; answer(position: number): R };

/**
 * Decides what each submission writes. Called in commit order, so that a decision sees what
 * earlier submissions of the same commit wrote (the planner keeps that pending state between
 * `beginCommit` and `endCommit`).
 */
export interface AppendPlanner<S, R, U extends AppendUnit> {
  /** A group commit begins at log position `commitStart`. */
  beginCommit(commitStart: number): void;
  plan(submission: S, commitStart: number): AppendPlan<R, U>;
  /** The units of a 'write' plan were encoded (in the order given), at their positions. */
  encoded(submission: S, result: R, units: U[]): void;
  /** Units encoded for `submission` were rolled back: they were never durable and never will be. */
  rolledBack(submission: S, units: U[]): void;
  /** The commit ended (durable, refused or failed): pending state is dropped. */
  endCommit(): void;
}

interface Queued<S, R> {
  submission: S;
  /** See LogAppender.submit. */
  followUp: boolean;
  resolve: (result: R) => void;
  reject: (error: Error) => void;
}

/** A submission of the commit under way and what it wrote, answered once that is durable. */
interface Answer<S, R, U> {
  queued: Queued<S, R>;
  units: U[];
  result: R;
}

/** A repeat within the commit: answered once its original, at `position`, is durable. */
interface Repeat<S, R> {
  queued: Queued<S, R>;
  result: R;
  position: number;
}

/**
 * A commit of this many bytes or more that carries follow-ups is written on the thread pool: its
 * write(2) fills that many bytes of fresh page cache, long enough for the consumers that made the
 * follow-ups to go on with their next events meanwhile. A commit of clients' writes alone is
 * written on the event loop: its appenders wait for the fsync anyway, and the round trip through
 * the thread pool would only add to their latency.
 */
const THREAD_POOL_WRITE_BYTES_MIN = 64 * 1024;

/**
 * Submissions one group commit takes at most; the rest wait for the next. A commit's bookkeeping
 * spreads its submissions into calls, and 125k of them at once (a projection's fan-out, a flood
 * of clients) overflowed the stack and stopped the writer.
 */
const COMMIT_REQUESTS_MAX = 8192;

/** The longest a commit waits for more writers to join it. */
const GATHER_MS_MAX = 1;
/** A commit stops waiting once this share of the active writers has queued. */
const GATHER_SHARE = 0.9;

/** Submissions that a commit may wait for: all but follow-ups (see LogAppender.submit). */
function countWriters(queued: ReadonlyArray<{ readonly followUp: boolean }>): number {
  let count = 0;
  for (const entry of queued) if (!entry.followUp) count++;
  return count;
}

/**
 * The single writer of the log, knowing nothing of what it writes. Submissions queue while a
 * group commit is in flight; the next commit takes everything queued, asks the planner what each
 * writes, encodes the units straight into the chunk's memory, writes them, fsyncs the chunk, then
 * moves writer.chk on, and only then hands the units to `onDurable` and answers the submitters. The
 * batch size adapts by itself to the disk's fsync latency.
 */
export class LogAppender<S, R, U extends AppendUnit> {
  private queue: Array<Queued<S, R>> = [];
  private running = false;
  private failure: SvcError | Error | undefined;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => undefined;
  /** Whether a group commit is under way (gathering or flushing). */
  private committing = false;
  /** How many clients' submissions (not follow-ups) it carries. */
  private committingWriters = 0;
  /** Whether it carries follow-ups: its large writes are then made off the event loop (THREAD_POOL_WRITE_BYTES_MIN). */
  private writeOffLoop = false;
  /** Settles when the commit under way ends; made only once someone asks (not on every commit). */
  private commitEnd: { promise: Promise<void>; resolve: () => void } | undefined;
  /** Submissions waiting and group commits done, for /stats. */
  readonly queueMeter = new QueueMeter('StorageWriter', 'Storage');
  readonly flushMeter = new FlushMeter();

  constructor(
    private readonly log: TransactionLog,
    private readonly writerCheckpoint: Checkpoint,
    private readonly planner: AppendPlanner<S, R, U>,
    /** Units made durable by one commit, in log order, and the end of the durable log. */
    private readonly onDurable: (units: U[], endPosition: number) => void,
    private readonly onFatal: (error: Error) => void,
  ) {}

  /**
   * Queues `submission` for the next group commit. A follow-up comes from a log consumer writing
   * what it derives from a commit: no commit is held back to gather follow-ups, so that the
   * consumers do their work while that commit is flushed and their writes go in the next one.
   */
  submit(submission: S, followUp = false): Promise<R> {
    if (this.failure) return Promise.reject(Errors.storageClosed.create(`the writer stopped: ${this.failure.message}`));
    return new Promise((resolve, reject) => {
      this.queue.push({ submission, followUp, resolve, reject });
      this.queueMeter.enqueued();
      if (!this.running) void this.run();
    });
  }

  /** Resolves when nothing is queued or being written. */
  drained(): Promise<void> {
    return this.running ? this.idle : Promise.resolve();
  }

  /**
   * The group commit under way, settling when it ends, while clients' writes contend for the
   * writer: two or more of them in it or queued behind it (follow-ups do not count: background
   * work gives way to clients, not to its own writes). Undefined otherwise: a lone writer's
   * commits leave the event loop free most of the time.
   */
  commitWithClientsWaiting(): Promise<void> | undefined {
    if (!this.committing || this.committingWriters + countWriters(this.queue) < 2) return undefined;
    if (this.commitEnd === undefined) {
      let resolve: () => void = () => undefined;
      const promise = new Promise<void>((settle) => (resolve = settle));
      this.commitEnd = { promise, resolve };
    }
    return this.commitEnd.promise;
  }

  private async run(): Promise<void> {
    this.running = true;
    this.idle = new Promise((resolve) => (this.markIdle = resolve));
    try {
      let writers = 0;
      let previousMs = 0;
      while (this.queue.length > 0 && !this.failure) {
        this.committing = true;
        await this.gather(writers, previousMs);
        const batch = this.queue.length <= COMMIT_REQUESTS_MAX ? this.queue : this.queue.splice(0, COMMIT_REQUESTS_MAX);
        if (batch === this.queue) this.queue = [];
        this.committingWriters = countWriters(batch);
        this.writeOffLoop = this.committingWriters < batch.length;
        this.queueMeter.taken(batch.length);
        const started = this.queueMeter.begin('GroupCommit');
        await this.commit(batch);
        this.queueMeter.end(started, batch.length);
        this.commitDone();
        // Those just committed plus those that queued meanwhile: how many writers are active.
        writers = countWriters(batch) + countWriters(this.queue);
        previousMs = performance.now() - started;
      }
    } finally {
      this.commitDone();
      this.running = false;
      this.markIdle();
    }
  }

  private commitDone(): void {
    this.committing = false;
    this.committingWriters = 0;
    const end = this.commitEnd;
    this.commitEnd = undefined;
    end?.resolve();
  }

  /**
   * Concurrent writers settle into two cohorts: one is being flushed while the other waits, and
   * each commit carries half of them. Before a commit, while fewer submissions are queued than
   * the writers active at the end of the last commit, the appender lets the event loop turn (at
   * most half the last commit's duration) so that writers just acknowledged can join: one fsync
   * then serves both cohorts. A lone writer never waits, and a commit never waits for follow-ups:
   * the consumers that make them run while it is flushed.
   */
  private async gather(writers: number, previousMs: number): Promise<void> {
    const wanted = Math.floor(writers * GATHER_SHARE);
    if (writers <= 1 || this.queue.length >= wanted) return;
    const deadline = performance.now() + Math.min(previousMs / 2, GATHER_MS_MAX);
    while (this.queue.length < wanted && performance.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * One group commit. Units are flushed segment by segment (a segment ends where a chunk fills
   * up); a unit counts as durable once its segment is fsynced. A full disk or a lack of
   * descriptors refuses the submissions not yet durable and leaves the appender running; any
   * other failure stops it.
   */
  private async commit(batch: Array<Queued<S, R>>): Promise<void> {
    /** Submissions of the segment being encoded; moved to `durable` once the segment is flushed. */
    let planned: Array<Answer<S, R, U>> = [];
    const durable: Array<Answer<S, R, U>> = [];
    /** Repeats of writes in this very commit: answered only once those writes are durable. */
    const repeats: Array<Repeat<S, R>> = [];
    const commitStart = this.log.writerPosition;
    let segmentStart = commitStart;
    let used = 0;
    /** Submissions from here on were not reached when a failure stopped the commit. */
    let next = 0;
    try {
      this.planner.beginCommit(commitStart);
      for (; next < batch.length; next++) {
        const queued = batch[next];
        const plan = this.planner.plan(queued.submission, commitStart);
        switch (plan.kind) {
          case 'refuse':
            queued.reject(plan.error);
            continue;
          case 'answer':
            queued.resolve(plan.result);
            continue;
          case 'answerWhenDurable':
            repeats.push({ queued, result: plan.result, position: plan.position });
            continue;
          case 'completeChunk':
            // What this commit encoded so far goes into the chunk being completed, before it.
            if (this.log.currentChunk.dataSize + used > 0) {
              await this.flushSegment(used, segmentStart, true);
              durable.push(...planned);
              planned = [];
              segmentStart = this.log.writerPosition;
              used = 0;
            }
            planned.push({ queued, units: [], result: plan.answer(segmentStart) });
            continue;
        }
        const { units, result } = plan;
        let framedBytes = 0;
        for (const unit of units) framedBytes += unit.framedBytes;
        if (!this.log.fits(used + framedBytes)) {
          // The chunk was full: write what was encoded for it, then continue in the next one.
          await this.flushSegment(used, segmentStart, true);
          durable.push(...planned);
          planned = [];
          segmentStart = this.log.writerPosition;
          used = 0;
        }
        // Records are encoded straight into the chunk's memory after its data; `fits` checked the room.
        const target = this.log.encodeTarget();
        for (const unit of units) {
          const written = unit.encode(target.buffer, target.offset + used, segmentStart + used);
          if (written !== unit.framedBytes) throw new TypeError('framed size estimate differs from the encoded size');
          used += written;
        }
        this.planner.encoded(queued.submission, result, units);
        planned.push({ queued, units, result });
      }
      if (used > 0 || planned.length > 0) await this.flushSegment(used, segmentStart, false);
      durable.push(...planned);
      planned = [];
    } catch (error) {
      if (!isTransientStorageError(error)) {
        this.fail(error as Error, batch);
        return;
      }
      await this.refuse(error as Error, planned, repeats);
      for (const queued of batch.slice(next)) queued.reject(error as Error);
    } finally {
      this.planner.endCommit();
    }
    if (durable.length > 0) {
      try {
        this.onDurable(durable.flatMap((answer) => answer.units), this.log.writerPosition);
      } catch (error) {
        // The records are durable but could not be indexed: they are refused, not acknowledged
        // (a retry with the same event ids finds them after the restart), and the writer stops.
        this.fail(error as Error, [...durable, ...repeats].map((answer) => answer.queued));
        return;
      }
    }
    for (const answer of [...durable, ...repeats]) answer.queued.resolve(answer.result);
  }

  /**
   * Refuses the submissions of a segment that could not be made durable (and the repeats of
   * them), after rolling the log back to writer.chk: nothing of them is acknowledged, readable or
   * kept. A rollback that fails is fatal. `repeats` keeps the repeats of writes made durable before.
   */
  private async refuse(error: Error, failed: Array<Answer<S, R, U>>, repeats: Array<Repeat<S, R>>): Promise<void> {
    const durableEnd = this.writerCheckpoint.value;
    try {
      await this.log.rollbackTo(durableEnd);
    } catch (rollbackError) {
      this.fail(rollbackError as Error, [...failed.map((answer) => answer.queued), ...repeats.map((repeat) => repeat.queued)]);
      repeats.length = 0;
      return;
    }
    for (const answer of failed) {
      answer.queued.reject(error);
      this.planner.rolledBack(answer.queued.submission, answer.units);
    }
    const kept = repeats.filter((repeat) => repeat.position < durableEnd);
    for (const repeat of repeats) if (!kept.includes(repeat)) repeat.queued.reject(error);
    repeats.splice(0, repeats.length, ...kept);
    this.flushMeter.refused();
  }

  /**
   * Appends the `used` bytes encoded in place and makes them durable: one fsync, of the chunk.
   * writer.chk then moves on in the page cache only; recovery finds the records past a writer.chk
   * that a crash of the machine left behind (TransactionLog.open), and the checkpoint flush makes
   * it durable once a second. A chunk switch flushes writer.chk at once, before anything is
   * written to the next chunk, so that recovery never has to look for records in a chunk past
   * writer.chk's.
   */
  private async flushSegment(used: number, segmentStart: number, chunkFull: boolean): Promise<void> {
    if (segmentStart !== this.log.writerPosition) throw new TypeError('segment does not start at the writer position');
    const started = performance.now();
    if (used > 0) await this.log.appendEncoded(used, this.writeOffLoop && used >= THREAD_POOL_WRITE_BYTES_MIN);
    if (chunkFull) {
      await this.log.completeCurrentChunk();
      await this.writerCheckpoint.writeAsync(this.log.writerPosition);
    } else {
      await this.log.sync();
      this.writerCheckpoint.advance(this.log.writerPosition);
    }
    this.flushMeter.record(used, performance.now() - started);
  }

  private fail(error: Error, batch: Array<Queued<S, R>>): void {
    this.failure = error;
    const stopped = Errors.storageClosed.create(`the writer stopped: ${error.message}`);
    for (const queued of [...batch, ...this.queue]) queued.reject(stopped);
    this.queueMeter.taken(this.queue.length);
    this.queue = [];
    this.onFatal(error);
  }
}
