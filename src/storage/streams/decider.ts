import { randomUUID } from 'node:crypto';
import { Errors, type SvcError } from '../../common/errors.js';
import { withMember } from '../../common/json-scan.js';
import type { AppendPlan, AppendPlanner } from '../log/appender.js';
import { framedEventBytes } from '../log/packed-event.js';
import { RecentIds } from './recent-ids.js';
import {
  DELETED_EVENT_NUMBER, EVENT_NUMBER_MAX_TEXT, ExpectedVersion, METADATA_EVENT_TYPE, NO_STREAM, isMetadataStream,
  metadataStreamOf, originalStreamOf, parseStoredMetadata, withTruncateBefore, type StreamMetadata,
} from './stream-metadata.js';
import { StreamWrite } from './stream-write.js';
import type { NewEvent, WriteRequest, WriteResult } from './write-types.js';

/** What the idempotency check compares: an event's number, id (lower case) and place in the log. */
export interface StoredEvent {
  eventNumber: number;
  eventId: string;
  logPosition: number;
}

/**
 * What the decider reads of streams: their state as readers see it, before the commit being
 * built (the decider adds that itself). streams/stream-info.ts answers it from the index and the
 * log; a test may answer it from plain maps.
 */
export interface StreamState {
  /** NO_STREAM when the stream has no events, DELETED_EVENT_NUMBER when it was hard deleted. */
  lastEventNumber(streamName: string): number;
  metadata(streamName: string): StreamMetadata;
  /** The events numbered from..to (inclusive) that exist, ascending, one per number. */
  events(streamName: string, from: number, to: number): readonly StoredEvent[];
}

type Plan = AppendPlan<WriteResult, StreamWrite>;

const COMPLETE_CHUNK: Plan = {
  kind: 'completeChunk',
  answer: (logPosition) => ({ firstEventNumber: -1, lastEventNumber: -1, logPosition, idempotent: false }),
};

/**
 * The stream rules of a write: expected versions, idempotency, deleted streams, soft delete and
 * undelete, metadata. It turns each request into the stream writes it makes (or a refusal, or
 * the answer of an earlier write) from the stream state it is given and what the commit being
 * built has decided so far; it does no I/O. The log appender calls it in commit order.
 */
export class StreamDecider implements AppendPlanner<WriteRequest, WriteResult, StreamWrite> {
  /** Last event numbers decided in the commit being built, ahead of what readers can see. */
  private readonly pendingLast = new Map<string, number>();
  /** Writes encoded in the commit being built, by stream: a repeat in the same commit sees them. */
  private readonly pendingWrites = new Map<string, StreamWrite[]>();
  /** Metadata written in the commit being built, by the stream it describes. */
  private readonly pendingMetadata = new Map<string, StreamMetadata>();
  private readonly recentIds: RecentIds;
  /** The time of the commit being built, in each of its records. */
  private timestamp = 0;

  constructor(
    private readonly streams: StreamState,
    recentIdsMax: number,
    private readonly clock: () => number,
  ) {
    this.recentIds = new RecentIds(recentIdsMax);
  }

  beginCommit(): void {
    this.timestamp = this.clock();
  }

  plan(request: WriteRequest, commitStart: number): Plan {
    if (request.kind === 'completeChunk') return COMPLETE_CHUNK;
    const decision = this.decide(request);
    if (decision instanceof Error) return { kind: 'refuse', error: decision };
    if (decision.idempotent && decision.logPosition >= commitStart) {
      return { kind: 'answerWhenDurable', result: decision, position: decision.logPosition };
    }
    if (decision.idempotent) return { kind: 'answer', result: decision };
    const units = this.writesOf(request, decision);
    return units.length === 0 ? { kind: 'answer', result: decision } : { kind: 'write', units, result: decision };
  }

  /** Records what the writes of `request` decided, for the requests after it in this commit. */
  encoded(request: WriteRequest, result: WriteResult, writes: StreamWrite[]): void {
    for (const write of writes) this.remember(write, request.followUp === true);
    const main = writes[writes.length - 1];
    if (request.kind === 'hardDelete') this.pendingLast.set(request.streamName, DELETED_EVENT_NUMBER);
    result.logPosition = main.positions[0];
    if (request.kind === 'softDelete') {
      result.firstEventNumber = main.firstEventNumber;
      result.lastEventNumber = main.lastEventNumber;
    }
  }

  rolledBack(request: WriteRequest, writes: StreamWrite[]): void {
    if (request.followUp === true) return;
    for (const write of writes) this.recentIds.forget(write.events);
  }

  endCommit(): void {
    this.pendingLast.clear();
    this.pendingWrites.clear();
    this.pendingMetadata.clear();
  }

  private remember(write: StreamWrite, followUp: boolean): void {
    const { streamName, events } = write;
    // Idempotency with expected version "any" looks up the first id of a repeat, which may be any
    // event of a write. Follow-ups are left out: a projection knows what it wrote before (its
    // emitted events name their cause), and the links of every event of the log would push the
    // clients' ids out of the table.
    if (!followUp) this.recentIds.add(events, write.firstEventNumber);
    this.pendingLast.set(streamName, write.lastEventNumber);
    if (isMetadataStream(streamName)) {
      const lastEvent = events[events.length - 1];
      this.pendingMetadata.set(originalStreamOf(streamName), parseStoredMetadata(lastEvent.data, lastEvent.isJson));
    }
    const pending = this.pendingWrites.get(streamName);
    if (pending === undefined) this.pendingWrites.set(streamName, [write]);
    else pending.push(write);
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
  private storedEvents(streamName: string, from: number, to: number): readonly StoredEvent[] {
    const seen = this.streams.events(streamName, from, to);
    const pending = this.pendingWrites.get(streamName);
    if (pending === undefined) return seen;
    const stored = seen.slice();
    for (const write of pending) {
      for (let i = Math.max(from - write.firstEventNumber, 0); i < write.events.length && write.firstEventNumber + i <= to; i++) {
        stored.push({ eventNumber: write.firstEventNumber + i, eventId: write.events[i].eventId.toLowerCase(), logPosition: write.positions[i] });
      }
    }
    return stored;
  }

  /**
   * The writes of a request that passed its checks. A soft delete writes metadata with `$tb` =
   * 9223372036854775807; the first append after one writes metadata with `$tb` = its first event
   * number before its events. Both keep every other metadata property. A write to the metadata
   * stream of a soft-deleted stream is followed by an undelete (see undeleteWrite).
   */
  private writesOf(request: WriteRequest, decision: WriteResult): StreamWrite[] {
    const { kind, streamName, events } = request;
    if (kind === 'softDelete') return [this.truncateWrite(streamName, EVENT_NUMBER_MAX_TEXT)];
    const writes: StreamWrite[] = [];
    const isAppend = kind === 'append';
    if (isAppend && !isMetadataStream(streamName) && this.currentMetadata(streamName).truncateBefore === DELETED_EVENT_NUMBER) {
      writes.push(this.truncateWrite(streamName, String(decision.firstEventNumber)));
    }
    if (events.length > 0) {
      let framedBytes = isAppend ? request.framedBytes ?? 0 : 0;
      if (framedBytes === 0) for (const event of events) framedBytes += framedEventBytes(streamName, event);
      writes.push(new StreamWrite(streamName, decision.firstEventNumber, events, framedBytes, this.timestamp, kind === 'hardDelete'));
    }
    if (isAppend && isMetadataStream(streamName)) {
      const undelete = this.undeleteWrite(request, decision);
      if (undelete) writes.push(undelete);
    }
    return writes;
  }

  /** The next metadata event of `streamName`: its present metadata with `$tb` set to `truncateBeforeText`. */
  private truncateWrite(streamName: string, truncateBeforeText: string): StreamWrite {
    const metadataStream = metadataStreamOf(streamName);
    const text = withMember(this.currentMetadata(streamName).text, '$tb', truncateBeforeText);
    return this.metadataWrite(metadataStream, this.currentLast(metadataStream) + 1, text);
  }

  /**
   * Metadata written to a soft-deleted stream undeletes it, as the reference does: after the
   * write comes the new metadata again with `$tb` = the stream's last event number + 1. The new
   * metadata takes effect and the deleted events stay hidden (metadata without `$tb` would bring
   * them back). Metadata that is not a JSON object is left as it is.
   */
  private undeleteWrite(request: WriteRequest, decision: WriteResult): StreamWrite | undefined {
    const stream = originalStreamOf(request.streamName);
    if (request.events.length === 0 || this.currentMetadata(stream).truncateBefore !== DELETED_EVENT_NUMBER) return undefined;
    const written = request.events[request.events.length - 1];
    const text = withTruncateBefore(written.data.toString('utf8'), String(this.currentLast(stream) + 1));
    return text === undefined ? undefined : this.metadataWrite(request.streamName, decision.lastEventNumber + 1, text);
  }

  /** One metadata event with `text`, numbered `eventNumber` in `metadataStream`. */
  private metadataWrite(metadataStream: string, eventNumber: number, text: string): StreamWrite {
    const event: NewEvent = { eventId: randomUUID(), eventType: METADATA_EVENT_TYPE, data: Buffer.from(text), metadata: Buffer.alloc(0), isJson: true };
    return new StreamWrite(metadataStream, eventNumber, [event], framedEventBytes(metadataStream, event), this.timestamp, false);
  }
}
