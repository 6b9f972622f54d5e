import type { StoredEvent, StreamDecider, StreamState } from '../../src/storage/streams/decider.js';
import {
  EMPTY_METADATA, NO_STREAM, metadataStreamOf, parseStoredMetadata, type StreamMetadata,
} from '../../src/storage/streams/stream-metadata.js';
import type { StreamWrite } from '../../src/storage/streams/stream-write.js';
import type { CommittedWrite, WriteRequest, WriteResult } from '../../src/storage/streams/write-types.js';

interface MemoryEvent extends StoredEvent {
  data: Buffer;
  isJson: boolean;
}

/**
 * The stream state a decider reads, kept in plain maps: what the engine's index and log answer,
 * without them. Commits add their writes as the engine publishes them.
 */
export class MemoryStreams implements StreamState {
  private readonly streams = new Map<string, MemoryEvent[]>();
  /** Where the next record goes: the end of the log these streams were written to. */
  end = 0;

  lastEventNumber(streamName: string): number {
    const events = this.streams.get(streamName);
    return events === undefined ? NO_STREAM : events[events.length - 1].eventNumber;
  }

  metadata(streamName: string): StreamMetadata {
    const events = this.streams.get(metadataStreamOf(streamName));
    if (events === undefined) return EMPTY_METADATA;
    const last = events[events.length - 1];
    return parseStoredMetadata(last.data, last.isJson);
  }

  events(streamName: string, from: number, to: number): readonly StoredEvent[] {
    return (this.streams.get(streamName) ?? []).filter((event) => event.eventNumber >= from && event.eventNumber <= to);
  }

  /** The ids of every event of `streamName`, in order. */
  ids(streamName: string): string[] {
    return (this.streams.get(streamName) ?? []).map((event) => event.eventId);
  }

  add(write: CommittedWrite): void {
    const events = this.streams.get(write.streamName) ?? [];
    write.events.forEach((event, i) => events.push({
      eventNumber: write.firstEventNumber + i, eventId: event.eventId.toLowerCase(), logPosition: write.positions[i],
      data: event.data, isJson: event.isJson,
    }));
    this.streams.set(write.streamName, events);
  }
}

/** What the decider made of one request of a commit. */
export type Decided =
  | { kind: 'refused'; error: Error }
  /** Answered without writing; `whenDurable` for a repeat of a write of the same commit. */
  | { kind: 'answered'; result: WriteResult; whenDurable: boolean }
  | { kind: 'written'; result: WriteResult; writes: StreamWrite[] };

/**
 * One commit of `requests` through `decider`, as the log appender makes it: each request planned
 * in order, its writes encoded (into scratch memory here) at the next positions, then the writes
 * added to `streams` as the engine publishes them.
 */
export function commitRequests(decider: StreamDecider, streams: MemoryStreams, requests: WriteRequest[]): Decided[] {
  const commitStart = streams.end;
  const decided: Decided[] = [];
  const durable: StreamWrite[] = [];
  let position = commitStart;
  decider.beginCommit();
  try {
    for (const request of requests) {
      const plan = decider.plan(request, commitStart);
      if (plan.kind === 'refuse') decided.push({ kind: 'refused', error: plan.error });
      else if (plan.kind === 'answer' || plan.kind === 'answerWhenDurable') decided.push({ kind: 'answered', result: plan.result, whenDurable: plan.kind === 'answerWhenDurable' });
      else if (plan.kind === 'completeChunk') throw new TypeError('commitRequests writes to streams only');
      else {
        for (const unit of plan.units) {
          const written = unit.encode(Buffer.alloc(unit.framedBytes), 0, position);
          if (written !== unit.framedBytes) throw new Error(`a write of ${unit.streamName} encoded ${written} bytes, not ${unit.framedBytes}`);
          position += written;
        }
        decider.encoded(request, plan.result, plan.units);
        durable.push(...plan.units);
        decided.push({ kind: 'written', result: plan.result, writes: plan.units });
      }
    }
  } finally {
    decider.endCommit();
  }
  for (const write of durable) streams.add(write);
  streams.end = position;
  return decided;
}
