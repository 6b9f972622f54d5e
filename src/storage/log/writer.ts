import { RecentIds } from '../streams/recent-ids.js';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Errors, type SvcError } from '../../common/errors.js';
import type { Checkpoint } from './checkpoint.js';
import { EventFlags, FRAME_BYTES, encodeEventRecord, encodePackedEventRecord, type EventRecordInput } from './record.js';
import { PackedEvent, bodyBytes } from './packed-event.js';
import type { StreamLookup } from '../streams/stream-info.js';
import {
  DELETED_EVENT_NUMBER, EVENT_NUMBER_MAX_TEXT, ExpectedVersion, METADATA_EVENT_TYPE, NO_STREAM, isMetadataStream,
  metadataStreamOf, originalStreamOf, parseStoredMetadata, withTruncateBefore, type StreamMetadata,
} from '../streams/stream-metadata.js';
import { withMember } from '../../common/json-scan.js';
import type { TransactionLog } from './transaction-log.js';
import { FlushMeter, QueueMeter } from './meters.js';
import { isTransientStorageError } from '../disk/file-write.js';

export interface NewEvent {
  eventId: string;
  eventType: string;
  data: Buffer;
  metadata: Buffer;
  isJson: boolean;
}

export interface WriteResult {
  firstEventNumber: number;
  lastEventNumber: number;
  /** Log position of the first record written (or of the original write when idempotent). */
  logPosition: number;
  /** True when every event id was already written at this place: nothing new was written. */
  idempotent: boolean;
}

/** `completeChunk` writes nothing: it completes the ongoing chunk (one holding a scavenge point). */
export type WriteKind = 'append' | 'softDelete' | 'hardDelete' | 'completeChunk';

export interface WriteRequest {
  kind: WriteKind;
  streamName: string;
  expectedVersion: number;
  /** The events to append; for a hard delete the tombstone, for a soft delete none. */
  events: NewEvent[];
  /** The framed size of `events`, when the caller already measured it. */
  framedBytes?: number;
  /** Checks of the body that come after those of the stream (expected version, deletion). */
  check?: () => SvcError | undefined;
  /** See AppendOptions. */
  followUp?: boolean;
}

export interface AppendOptions {
  /**
   * The append follows from a commit (a log consumer writing what it derives, such as the links
   * of a projection): the writer does not hold a commit back to gather such appends, so that the
   * consumers do their work while that commit is flushed and their appends go in the next one.
   * Nor does it remember their ids for the idempotency of expected version "any": the consumer
   * knows what it wrote before.
   */
  followUp?: boolean;
}

/** Records committed in one group commit, handed to the engine to index and publish. */
export interface CommittedWrite {
  streamName: string;
  firstEventNumber: number;
  lastEventNumber: number;
  positions: number[];
  events: NewEvent[];
}

interface Pending {
  request: WriteRequest;
  resolve: (result: WriteResult) => void;
  reject: (error: Error) => void;
}

interface Planned {
  pending: Pending;
  writes: CommittedWrite[];
  result: WriteResult;
}

/** What the idempotency check compares: an event's number, id and place in the log. */
interface StoredEvent {
  eventNumber: number;
  eventId: string;
  logPosition: number;
}

/** What one request writes: the stream, its first event number, the events and their size. */
interface Plan {
  streamName: string;
  firstEventNumber: number;
  events: NewEvent[];
  framedBytes: number;
}


const EMPTY_BYTES = Buffer.alloc(0);

/**
 * A commit of this many bytes or more that carries follow-ups is written on the thread pool: its
 * write(2) fills that many bytes of fresh page cache, long enough for the consumers that made the
 * follow-ups to go on with their next events meanwhile. A commit of clients' writes alone is
 * written on the event loop: its appenders wait for the fsync anyway, and the round trip through
 * the thread pool would only add to their latency.
 */
const THREAD_POOL_WRITE_BYTES_MIN = 64 * 1024;

/**
 * Requests one group commit takes at most; the rest wait for the next. A commit's bookkeeping
 * spreads its requests into calls, and 125k of them at once (a projection's fan-out, a flood of
 * clients) overflowed the stack and stopped the writer.
 */
const COMMIT_REQUESTS_MAX = 8192;

/** The longest a commit waits for more writers to join it. */
const GATHER_MS_MAX = 1;
/** A commit stops waiting once this share of the active writers has queued. */
const GATHER_SHARE = 0.9;

/** Exact framed size of one event record. */
export function framedEventBytes(streamName: string, event: NewEvent): number {
  return FRAME_BYTES + 88 + Buffer.byteLength(streamName) + Buffer.byteLength(event.eventType) + bodyBytes(event);
}

/** Requests that a commit may wait for: all but follow-ups (see AppendOptions). */
function countWriters(pending: readonly Pending[]): number {
  let count = 0;
  for (const { request } of pending) if (request.followUp !== true) count++;
  return count;
}

/**
 * The single writer. Requests queue while a group commit is in flight; the next commit takes
 * everything queued, checks expected versions and idempotency in order, encodes all records
 * into one buffer, writes it, fsyncs the chunk, then fsyncs writer.chk, and only then hands
 * the writes to `onDurable` and resolves the callers. The batch size adapts by itself to the
 * disk's fsync latency.
 */
export class Writer {
  private queue: Pending[] = [];
  private running = false;
  private failure: SvcError | Error | undefined;
  /** Last event numbers decided in the commit being built, ahead of what readers can see. */
  private readonly pendingLast = new Map<string, number>();
  /** Writes encoded in the commit being built, by stream: a repeat in the same commit sees them. */
  private readonly pendingWrites = new Map<string, CommittedWrite[]>();
  /** Metadata written in the commit being built, by the stream it describes. */
  private readonly pendingMetadata = new Map<string, StreamMetadata>();
  private readonly recentIds: RecentIds;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => undefined;
  /** Whether a group commit is under way (gathering or flushing). */
  private committing = false;
  /** How many clients' writes (not follow-ups) it carries. */
  private committingWriters = 0;
  /** Whether it carries follow-ups: its large writes are then made off the event loop (THREAD_POOL_WRITE_BYTES_MIN). */
  private writeOffLoop = false;
  /** Settles when the commit under way ends; made only once someone asks (not on every commit). */
  private commitEnd: { promise: Promise<void>; resolve: () => void } | undefined;
  /** Requests waiting and group commits done, for /stats. */
  readonly queueMeter = new QueueMeter('StorageWriter', 'Storage');
  readonly flushMeter = new FlushMeter();

  constructor(
    private readonly log: TransactionLog,
    private readonly writerCheckpoint: Checkpoint,
    private readonly streams: StreamLookup,
    private readonly onDurable: (writes: CommittedWrite[], endPosition: number) => void,
    private readonly onFatal: (error: Error) => void,
    recentIdsMax: number,
    private readonly clock: () => number,
  ) {
    this.recentIds = new RecentIds(recentIdsMax);
  }

  submit(request: WriteRequest): Promise<WriteResult> {
    if (this.failure) return Promise.reject(Errors.storageClosed.create(`the writer stopped: ${this.failure.message}`));
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
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
        this.endCommit();
        // Those just committed plus those that queued meanwhile: how many writers are active.
        writers = countWriters(batch) + countWriters(this.queue);
        previousMs = performance.now() - started;
      }
    } finally {
      this.endCommit();
      this.running = false;
      this.markIdle();
    }
  }

  private endCommit(): void {
    this.committing = false;
    this.committingWriters = 0;
    const end = this.commitEnd;
    this.commitEnd = undefined;
    end?.resolve();
  }

  /**
   * Concurrent writers settle into two cohorts: one is being flushed while the other waits, and
   * each commit carries half of them. Before a commit, while fewer requests are queued than the
   * writers active at the end of the last commit, the writer lets the event loop turn (at most
   * half the last commit's duration) so that writers just acknowledged can join: one fsync then
   * serves both cohorts. A lone writer never waits, and a commit never waits for follow-ups:
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
   * One group commit. Writes are flushed segment by segment (a segment ends where a chunk fills
   * up); a write counts as durable once writer.chk covers its segment. A full disk or a lack of
   * descriptors refuses the writes not yet durable and leaves the writer running; any other
   * failure stops it.
   */
  private async commit(batch: Pending[]): Promise<void> {
    /** Writes of the segment being encoded; moved to `durable` once the segment is flushed. */
    let planned: Planned[] = [];
    const durable: Planned[] = [];
    /** Repeats of writes in this very commit: answered only once those writes are durable. */
    const repeats: Array<{ pending: Pending; result: WriteResult }> = [];
    const commitStart = this.log.writerPosition;
    let segmentStart = commitStart;
    let used = 0;
    /** Requests from here on were not reached when a failure stopped the commit. */
    let next = 0;
    try {
      const timestamp = this.clock();
      for (; next < batch.length; next++) {
        const pending = batch[next];
        if (pending.request.kind === 'completeChunk') {
          // What this commit encoded so far goes into the chunk being completed, before it.
          if (this.log.currentChunk.dataSize + used > 0) {
            await this.flushSegment(used, segmentStart, true);
            durable.push(...planned);
            planned = [];
            segmentStart = this.log.writerPosition;
            used = 0;
          }
          planned.push({ pending, writes: [], result: { firstEventNumber: -1, lastEventNumber: -1, logPosition: segmentStart, idempotent: false } });
          continue;
        }
        const decision = this.decide(pending.request);
        if (decision instanceof Error) {
          pending.reject(decision);
          continue;
        }
        if (decision.idempotent && decision.logPosition >= commitStart) {
          repeats.push({ pending, result: decision });
          continue;
        }
        if (decision.idempotent) {
          pending.resolve(decision);
          continue;
        }
        const plans = this.plan(pending.request, decision).filter((plan) => plan.events.length > 0);
        if (plans.length === 0) {
          pending.resolve(decision);
          continue;
        }
        const framedBytes = plans.reduce((total, plan) => total + plan.framedBytes, 0);
        if (!this.log.fits(used + framedBytes)) {
          // The chunk was full: write what was encoded for it, then continue in the next one.
          await this.flushSegment(used, segmentStart, true);
          durable.push(...planned);
          planned = [];
          segmentStart = this.log.writerPosition;
          used = 0;
        }
        const writes: CommittedWrite[] = [];
        for (const plan of plans) {
          writes.push(this.encode(plan, pending.request, segmentStart + used, used, timestamp));
          used += plan.framedBytes;
        }
        const main = writes[writes.length - 1];
        if (pending.request.kind === 'hardDelete') this.pendingLast.set(pending.request.streamName, DELETED_EVENT_NUMBER);
        decision.logPosition = main.positions[0];
        if (pending.request.kind === 'softDelete') Object.assign(decision, { firstEventNumber: main.firstEventNumber, lastEventNumber: main.lastEventNumber });
        planned.push({ pending, writes, result: decision });
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
      for (const pending of batch.slice(next)) pending.reject(error as Error);
    } finally {
      this.pendingLast.clear();
      this.pendingWrites.clear();
      this.pendingMetadata.clear();
    }
    if (durable.length > 0) {
      try {
        this.onDurable(durable.flatMap((plan) => plan.writes), this.log.writerPosition);
      } catch (error) {
        // The records are durable but could not be indexed: they are refused, not acknowledged
        // (a retry with the same event ids finds them after the restart), and the writer stops.
        this.fail(error as Error, [...durable, ...repeats].map((plan) => plan.pending));
        return;
      }
    }
    for (const plan of [...durable, ...repeats]) plan.pending.resolve(plan.result);
  }

  /**
   * Refuses the writes of a segment that could not be made durable (and the repeats of them),
   * after rolling the log back to writer.chk: nothing of them is acknowledged, readable or kept.
   * A rollback that fails is fatal. `repeats` keeps the repeats of writes made durable before.
   */
  private async refuse(error: Error, failed: Planned[], repeats: Array<{ pending: Pending; result: WriteResult }>): Promise<void> {
    const durableEnd = this.writerCheckpoint.value;
    try {
      await this.log.rollbackTo(durableEnd);
    } catch (rollbackError) {
      this.fail(rollbackError as Error, [...failed.map((plan) => plan.pending), ...repeats.map((repeat) => repeat.pending)]);
      repeats.length = 0;
      return;
    }
    for (const plan of failed) {
      plan.pending.reject(error);
      if (plan.pending.request.followUp !== true) for (const write of plan.writes) this.recentIds.forget(write.events);
    }
    const kept = repeats.filter((repeat) => repeat.result.logPosition < durableEnd);
    for (const repeat of repeats) if (!kept.includes(repeat)) repeat.pending.reject(error);
    repeats.splice(0, repeats.length, ...kept);
    this.flushMeter.refused();
  }

  /** Appends the `used` bytes encoded in place and makes them and writer.chk durable. */
  private async flushSegment(used: number, segmentStart: number, chunkFull: boolean): Promise<void> {
    if (segmentStart !== this.log.writerPosition) throw new TypeError('segment does not start at the writer position');
    const started = performance.now();
    if (used > 0) await this.log.appendEncoded(used, this.writeOffLoop && used >= THREAD_POOL_WRITE_BYTES_MIN);
    if (chunkFull) {
      await this.log.completeCurrentChunk();
    } else {
      await this.log.sync();
    }
    await this.writerCheckpoint.writeAsync(this.log.writerPosition);
    this.flushMeter.record(used, performance.now() - started);
  }

  private currentLast(streamName: string): number {
    return this.pendingLast.get(streamName) ?? this.streams.lastEventNumber(streamName);
  }

  private currentMetadata(streamName: string): StreamMetadata {
    return this.pendingMetadata.get(streamName) ?? this.streams.metadata(streamName);
  }

  /** Checks the request against the stream; returns the result to give or an error. */
  private decide(request: WriteRequest): WriteResult | SvcError {
    const { streamName, expectedVersion, events } = request;
    const guarded = isMetadataStream(streamName) ? originalStreamOf(streamName) : streamName;
    if (this.currentLast(guarded) === DELETED_EVENT_NUMBER) return Errors.streamDeleted.create(guarded);
    const current = this.currentLast(streamName);
    const truncateBefore = this.currentMetadata(streamName).truncateBefore ?? -1;
    const idempotent = this.idempotentResult(request, current);
    if (idempotent) return idempotent;
    if (expectedVersion === ExpectedVersion.streamExists && truncateBefore === DELETED_EVENT_NUMBER) {
      return Errors.streamDeleted.create(streamName, true);
    }
    const matches =
      expectedVersion === ExpectedVersion.any ||
      // A stream truncated past its end (soft deleted) may be recreated as a new one.
      (expectedVersion === ExpectedVersion.noStream && (current === NO_STREAM || truncateBefore > current)) ||
      // A stream that has only metadata exists.
      (expectedVersion === ExpectedVersion.streamExists && (current !== NO_STREAM || this.currentLast(metadataStreamOf(streamName)) !== NO_STREAM)) ||
      expectedVersion === current;
    if (!matches) return Errors.wrongExpectedVersion.create(streamName, expectedVersion, current);
    const bodyProblem = request.check?.();
    if (bodyProblem) return bodyProblem;
    const first = request.kind === 'hardDelete' ? DELETED_EVENT_NUMBER : current + 1;
    return { firstEventNumber: first, lastEventNumber: first + Math.max(events.length, 1) - 1, logPosition: -1, idempotent: false };
  }

  /**
   * An append whose event ids were all written already, in order and contiguous, is answered
   * with the original result. With an exact expected version N they must be the events from
   * N+1; otherwise the first id is looked up among recent events, and the rest must follow it
   * (a later part of the original write is a repeat too). Ids that match only in part are a
   * wrong expected version: the client is mixing old and new events.
   */
  private idempotentResult(request: WriteRequest, current: number): WriteResult | SvcError | undefined {
    const { streamName, expectedVersion, events } = request;
    if (request.kind !== 'append' || events.length === 0) return undefined;
    let first: number;
    if (expectedVersion >= ExpectedVersion.noStream) {
      first = expectedVersion + 1;
      if (current < first) return undefined;
    } else {
      // The number an id was written at in some stream: the comparison below tells whether it was this one.
      const seen = this.recentIds.get(events[0].eventId);
      if (seen === undefined) return undefined;
      first = seen;
    }
    const stored = this.storedEvents(streamName, first, first + events.length - 1);
    let matching = 0;
    while (matching < stored.length && stored[matching].eventNumber === first + matching &&
      stored[matching].eventId === events[matching].eventId.toLowerCase()) matching++;
    if (matching === events.length) {
      return { firstEventNumber: first, lastEventNumber: first + events.length - 1, logPosition: stored[0].logPosition, idempotent: true };
    }
    return matching > 0 ? Errors.wrongExpectedVersion.create(streamName, expectedVersion, current, matching) : undefined;
  }

  /**
   * Events numbered from..to, ascending: those readers see, then those of the commit being built
   * (derived here, where a repeat needs them, rather than recorded for every event encoded).
   */
  private storedEvents(streamName: string, from: number, to: number): StoredEvent[] {
    const stored: StoredEvent[] = this.streams.events(streamName, from, to);
    for (const write of this.pendingWrites.get(streamName) ?? []) {
      for (let i = Math.max(from - write.firstEventNumber, 0); i < write.events.length && write.firstEventNumber + i <= to; i++) {
        stored.push({ eventNumber: write.firstEventNumber + i, eventId: write.events[i].eventId.toLowerCase(), logPosition: write.positions[i] });
      }
    }
    return stored;
  }

  /**
   * Turns a request that passed its checks into the records it writes. A soft delete writes
   * metadata with `$tb` = 9223372036854775807; the first append after one writes metadata with
   * `$tb` = its first event number before its events. Both keep every other metadata property.
   * A write to the metadata stream of a soft-deleted stream is followed by an undelete (see
   * undeletePlan).
   */
  private plan(request: WriteRequest, decision: WriteResult): Plan[] {
    const { streamName } = request;
    if (request.kind === 'softDelete') return [this.truncatePlan(streamName, EVENT_NUMBER_MAX_TEXT)];
    let framedBytes = request.kind === 'append' ? request.framedBytes ?? 0 : 0;
    if (framedBytes === 0) for (const event of request.events) framedBytes += framedEventBytes(streamName, event);
    const plan: Plan = { streamName, firstEventNumber: decision.firstEventNumber, events: request.events, framedBytes };
    if (request.kind !== 'append') return [plan];
    if (isMetadataStream(streamName)) {
      const undelete = this.undeletePlan(request, decision);
      return undelete ? [plan, undelete] : [plan];
    }
    if (this.currentMetadata(streamName).truncateBefore !== DELETED_EVENT_NUMBER) return [plan];
    return [this.truncatePlan(streamName, String(decision.firstEventNumber)), plan];
  }

  /** The next metadata event of `streamName`: its present metadata with `$tb` set to `truncateBeforeText`. */
  private truncatePlan(streamName: string, truncateBeforeText: string): Plan {
    const metadataStream = metadataStreamOf(streamName);
    const text = withMember(this.currentMetadata(streamName).text, '$tb', truncateBeforeText);
    return this.metadataPlan(metadataStream, this.currentLast(metadataStream) + 1, text);
  }

  /**
   * Metadata written to a soft-deleted stream undeletes it, as the reference does: after the
   * write comes the new metadata again with `$tb` = the stream's last event number + 1. The new
   * metadata takes effect and the deleted events stay hidden (metadata without `$tb` would bring
   * them back). Metadata that is not a JSON object is left as it is.
   */
  private undeletePlan(request: WriteRequest, decision: WriteResult): Plan | undefined {
    const stream = originalStreamOf(request.streamName);
    if (this.currentMetadata(stream).truncateBefore !== DELETED_EVENT_NUMBER) return undefined;
    const written = request.events[request.events.length - 1];
    const text = withTruncateBefore(written.data.toString('utf8'), String(this.currentLast(stream) + 1));
    return text === undefined ? undefined : this.metadataPlan(request.streamName, decision.lastEventNumber + 1, text);
  }

  /** One metadata event with `text`, numbered `eventNumber` in `metadataStream`. */
  private metadataPlan(metadataStream: string, eventNumber: number, text: string): Plan {
    const event: NewEvent = { eventId: randomUUID(), eventType: METADATA_EVENT_TYPE, data: Buffer.from(text), metadata: Buffer.alloc(0), isJson: true };
    return { streamName: metadataStream, firstEventNumber: eventNumber, events: [event], framedBytes: framedEventBytes(metadataStream, event) };
  }

  private encode(plan: Plan, request: WriteRequest, position: number, offset: number, timestamp: number): CommittedWrite {
    const { streamName, events, firstEventNumber: first } = plan;
    // Records are encoded straight into the chunk's memory after its data; `fits` checked the room.
    const target = this.log.encodeTarget();
    const correlationId = randomUUID();
    const positions: number[] = [];
    let cursor = offset;
    // One record object for the whole write, its fields set for each event: one less allocation per record.
    const record: EventRecordInput = {
      logPosition: 0, flags: 0, transactionPosition: position, transactionOffset: 0, eventNumber: 0, timestamp,
      eventId: '', correlationId, streamName, eventType: '', data: EMPTY_BYTES, metadata: EMPTY_BYTES,
    };
    for (let i = 0; i < events.length; i++) {
      const event = events[i];
      record.logPosition = position + cursor - offset;
      record.flags = this.flagsFor(request.kind, event, i, events.length);
      record.transactionOffset = i;
      record.eventNumber = first + i;
      record.eventType = event.eventType;
      positions.push(record.logPosition);
      if (event instanceof PackedEvent) {
        cursor += encodePackedEventRecord(target.buffer, target.offset + cursor, record, event);
        continue;
      }
      record.eventId = event.eventId;
      record.data = event.data;
      record.metadata = event.metadata;
      cursor += encodeEventRecord(target.buffer, target.offset + cursor, record);
    }
    // Idempotency with expected version "any" looks up the first id of a repeat, which may be any
    // event of a write. Follow-ups are left out: a projection knows what it wrote before (its
    // emitted events name their cause), and the links of every event of the log would push the
    // clients' ids out of the table.
    if (request.followUp !== true) this.recentIds.add(events, first);
    if (cursor - offset !== plan.framedBytes) throw new TypeError('framed size estimate differs from the encoded size');
    const last = first + events.length - 1;
    this.pendingLast.set(streamName, last);
    if (isMetadataStream(streamName)) {
      const lastEvent = events[events.length - 1];
      this.pendingMetadata.set(originalStreamOf(streamName), parseStoredMetadata(lastEvent.data, lastEvent.isJson));
    }
    const write: CommittedWrite = { streamName, firstEventNumber: first, lastEventNumber: last, positions, events };
    const pending = this.pendingWrites.get(streamName);
    if (pending === undefined) this.pendingWrites.set(streamName, [write]);
    else pending.push(write);
    return write;
  }

  private flagsFor(kind: WriteKind, event: NewEvent, index: number, count: number): number {
    let flags = EventFlags.data | EventFlags.isCommitted;
    if (index === 0) flags |= EventFlags.transactionBegin;
    if (index === count - 1) flags |= EventFlags.transactionEnd;
    if (event.isJson) flags |= EventFlags.isJson;
    if (kind === 'hardDelete') flags |= EventFlags.streamDelete;
    return flags;
  }

  private fail(error: Error, batch: Pending[]): void {
    this.failure = error;
    const stopped = Errors.storageClosed.create(`the writer stopped: ${error.message}`);
    for (const pending of [...batch, ...this.queue]) pending.reject(stopped);
    this.queueMeter.taken(this.queue.length);
    this.queue = [];
    this.onFatal(error);
  }
}
