import { Errors } from '../../common/errors.js';
import { isSystemStreamEvent, isSystemStreamEventButMetadata, RecordKind, type EventRecord } from '../log/record.js';
import type { StreamLookup } from '../streams/stream-info.js';
import { DELETED_EVENT_NUMBER, NO_STREAM, isMetadataStream, originalStreamOf, type StreamMetadata } from '../streams/stream-metadata.js';
import type { TransactionLog } from '../log/transaction-log.js';

export type ReadStatus = 'success' | 'notFound' | 'deleted';

export interface StreamPage {
  status: ReadStatus;
  /** In read order: ascending for forward reads, descending for backward reads. */
  events: EventRecord[];
  /** The stream's last event number (-1 when it has none). */
  lastEventNumber: number;
  /** Where the next page in the same direction starts. */
  nextEventNumber: number;
  isEndOfStream: boolean;
  metadata: StreamMetadata;
}

export interface EventRead {
  status: ReadStatus;
  event?: EventRecord;
  lastEventNumber: number;
}

/**
 * Which events a read of $all returns. A filter that matches rarely would scan the whole log for
 * one page; `scanLimit` bounds the events looked at, and the page then ends early, not at the end.
 */
export interface AllFilter {
  accepts(event: EventRecord): boolean;
  scanLimit: number;
  /** Events of system streams (`$`…) are never accepted: forward reads pass over them undecoded. */
  skipsSystemStreams?: boolean;
  /** With skipsSystemStreams: except those of metadata streams (`$$`…). */
  keepsMetadataStreams?: boolean;
}

export interface AllPage {
  events: EventRecord[];
  /** Position to continue from in the same direction. */
  nextPosition: number;
  isEnd: boolean;
}

/**
 * The filter of readers that never want events of system streams (`$`…), such as projections
 * reading from all streams: those events are passed over before they are decoded.
 */
export const SKIP_SYSTEM_STREAMS: AllFilter = Object.freeze({
  accepts: (event: EventRecord) => !event.streamName.startsWith('$'),
  scanLimit: Infinity,
  skipsSystemStreams: true,
});

/** As SKIP_SYSTEM_STREAMS, but the events of metadata streams (`$$`…) are kept: soft deletes are among them. */
export const SKIP_SYSTEM_STREAMS_BUT_METADATA: AllFilter = Object.freeze({
  accepts: (event: EventRecord) => !event.streamName.startsWith('$') || event.streamName.startsWith('$$'),
  scanLimit: Infinity,
  skipsSystemStreams: true,
  keepsMetadataStreams: true,
});

/** Which system streams' events a reader of all streams passes over: none, all, or all but metadata streams'. */
export type SystemStreamSkip = boolean | 'butMetadata';

/** How a forward read treats hidden events: moves past them, or keeps to its range (readForward). */
export type ForwardPages = 'skipHidden' | 'range';

export function systemStreamFilter(skip: SystemStreamSkip): AllFilter | undefined {
  if (skip === 'butMetadata') return SKIP_SYSTEM_STREAMS_BUT_METADATA;
  return skip ? SKIP_SYSTEM_STREAMS : undefined;
}

/** Events of system streams one page passes over at most. */
const SKIPPED_PER_PAGE_MAX = 20_000;

/** The visible range of a stream and the checks that hide expired and truncated events. */
interface Visibility {
  status: ReadStatus;
  last: number;
  firstVisible: number;
  oldestTimestamp: number;
  metadata: StreamMetadata;
}

/**
 * Stream and $all reads. Metadata takes effect at read time: events before `$tb`, beyond the
 * last `$maxCount`, or older than `$maxAge` are not returned, though they stay in the log
 * (and in $all) until a scavenge removes them.
 */
export class Reader {
  constructor(
    private readonly log: TransactionLog,
    private readonly streams: StreamLookup,
    private readonly now: () => number = Date.now,
  ) {}

  private visibility(streamName: string): Visibility {
    const last = this.streams.lastEventNumber(streamName);
    const metadata = this.streams.metadata(streamName);
    const firstVisible = Math.max(
      metadata.truncateBefore ?? 0,
      metadata.maxCount === undefined ? 0 : last - metadata.maxCount + 1,
    );
    let status: ReadStatus = 'success';
    if (last === DELETED_EVENT_NUMBER || this.originalDeleted(streamName)) status = 'deleted';
    // Soft deleted ($tb 9223372036854775807) is not found; a stream truncated past its end by
    // any other $tb exists, with no events to show (as the reference answers).
    else if (last === NO_STREAM || metadata.truncateBefore === DELETED_EVENT_NUMBER) status = 'notFound';
    const oldestTimestamp = metadata.maxAgeSeconds === undefined ? -Infinity : this.now() - metadata.maxAgeSeconds * 1000;
    return { status, last, firstVisible, oldestTimestamp, metadata };
  }

  /** A hard delete takes the metadata stream with it. */
  private originalDeleted(streamName: string): boolean {
    return isMetadataStream(streamName) && this.streams.lastEventNumber(originalStreamOf(streamName)) === DELETED_EVENT_NUMBER;
  }

  private visibleEvents(streamName: string, from: number, to: number, view: Visibility): EventRecord[] {
    const events = this.streams.events(streamName, from, to);
    return view.oldestTimestamp === -Infinity ? events : events.filter((event) => event.timestamp >= view.oldestTimestamp);
  }

  /** One event by number; -1 reads the last event. */
  readEvent(streamName: string, eventNumber: number): EventRead {
    const view = this.visibility(streamName);
    const lastEventNumber = view.status === 'success' ? view.last : NO_STREAM;
    if (view.status !== 'success') return { status: view.status, lastEventNumber };
    const number = eventNumber < 0 ? view.last : eventNumber;
    if (number < view.firstVisible || number > view.last) return { status: 'notFound', lastEventNumber };
    const [event] = this.visibleEvents(streamName, number, number, view);
    return event ? { status: 'success', event, lastEventNumber } : { status: 'notFound', lastEventNumber };
  }

  /**
   * Up to `maxCount` visible events from `fromEventNumber` on. With `pages: 'skipHidden'` the read
   * moves past the events `$tb`, `$maxCount` or `$maxAge` hide to return up to maxCount of them.
   * With `'range'` it holds only the visible events of `fromEventNumber` .. `fromEventNumber +
   * maxCount - 1`, as a page of a feed: pages that follow one another never share an event, and a
   * range hidden entirely is an empty page that is not the end of the stream.
   */
  readForward(streamName: string, fromEventNumber: number, maxCount: number, pages: ForwardPages = 'skipHidden'): StreamPage {
    const view = this.visibility(streamName);
    if (view.status !== 'success') return this.emptyPage(view, fromEventNumber);
    const start = Math.max(fromEventNumber, view.firstVisible);
    const end = Math.min((pages === 'range' ? fromEventNumber : start) + maxCount - 1, view.last);
    const events = start <= end ? this.visibleEvents(streamName, start, end, view) : [];
    return {
      status: 'success', events, lastEventNumber: view.last, metadata: view.metadata,
      nextEventNumber: Math.max(end + 1, start), isEndOfStream: end >= view.last,
    };
  }

  /** Reads backwards from `fromEventNumber` (-1: from the end). */
  readBackward(streamName: string, fromEventNumber: number, maxCount: number): StreamPage {
    const view = this.visibility(streamName);
    if (view.status !== 'success') return this.emptyPage(view, fromEventNumber);
    const end = fromEventNumber < 0 ? view.last : Math.min(fromEventNumber, view.last);
    const start = Math.max(end - maxCount + 1, view.firstVisible);
    const events = start <= end ? this.visibleEvents(streamName, start, end, view).reverse() : [];
    return {
      status: 'success', events, lastEventNumber: view.last, metadata: view.metadata,
      nextEventNumber: start - 1, isEndOfStream: start <= view.firstVisible,
    };
  }

  private emptyPage(view: Visibility, from: number): StreamPage {
    const lastEventNumber = view.status === 'deleted' ? DELETED_EVENT_NUMBER : NO_STREAM;
    return { status: view.status, events: [], lastEventNumber, nextEventNumber: from, isEndOfStream: true, metadata: view.metadata };
  }

  /** Events of every stream in log order, from a record position (0: the start). */
  readAllForward(position: number, maxCount: number, filter?: AllFilter): AllPage {
    this.checkBoundary(position);
    if (filter?.skipsSystemStreams) return this.readAllSkippingSystem(position, maxCount, filter);
    const events: EventRecord[] = [];
    const scanLimit = filter?.scanLimit ?? Infinity;
    let scanned = 0;
    let at = position;
    while (events.length < maxCount && scanned < scanLimit) {
      const next = this.log.nextRecord(at);
      if (!next) return { events, nextPosition: at, isEnd: true };
      if (next.record.kind === RecordKind.event) {
        scanned++;
        if (!filter || filter.accepts(next.record)) events.push(next.record);
      }
      at = next.nextPosition;
    }
    return { events, nextPosition: at, isEnd: at >= this.log.readableEnd };
  }

  /**
   * Events of non-system streams: events of `$`-streams are passed over undecoded, which is most
   * of the work of reading them. A page passes over at most SKIPPED_PER_PAGE_MAX of them, so it
   * may end early with fewer events (even none) before the end of the log.
   */
  private readAllSkippingSystem(position: number, maxCount: number, filter: AllFilter): AllPage {
    const events: EventRecord[] = [];
    let skipBudget = Math.min(SKIPPED_PER_PAGE_MAX, filter.scanLimit);
    let at = position;
    while (events.length < maxCount && skipBudget > 0) {
      const next = this.log.nextRecordSkipping(at, filter.keepsMetadataStreams ? isSystemStreamEventButMetadata : isSystemStreamEvent, skipBudget);
      if (!next) return { events, nextPosition: at, isEnd: true };
      skipBudget -= next.skipped;
      if (next.record?.kind === RecordKind.event && filter.accepts(next.record)) events.push(next.record);
      at = next.nextPosition;
    }
    return { events, nextPosition: at, isEnd: at >= this.log.readableEnd };
  }

  /** Events of every stream in reverse log order, from the end of the record before `position` (-1: the end). */
  readAllBackward(position: number, maxCount: number, filter?: AllFilter): AllPage {
    const events: EventRecord[] = [];
    const scanLimit = filter?.scanLimit ?? Infinity;
    let scanned = 0;
    let at = position < 0 ? this.log.readableEnd : Math.min(position, this.log.readableEnd);
    this.checkBoundary(at);
    while (events.length < maxCount && scanned < scanLimit) {
      const previous = this.log.previousRecord(at);
      if (!previous) return { events, nextPosition: 0, isEnd: true };
      if (previous.record.kind === RecordKind.event) {
        scanned++;
        if (!filter || filter.accepts(previous.record)) events.push(previous.record);
      }
      at = previous.position;
    }
    return { events, nextPosition: at, isEnd: at === 0 };
  }

  private checkBoundary(position: number): void {
    if (!this.log.isBoundary(position)) {
      throw Errors.invalidArgument.create('position', `${position} is not the position of a record in the log`);
    }
  }
}
