/**
 * The streams service: what the HTTP routes may do with streams, each operation checked through
 * the access seam first, links resolved on request, long polls waited for. It adapts the engine;
 * it knows nothing of HTTP.
 */
import type { Engine } from '../../storage/engine.js';
import type { AllFilter, AllPage, StreamPage } from '../../storage/read/reader.js';
import type { EventRecord } from '../../storage/log/record.js';
import { isMetadataStream, metadataStreamOf, originalStreamOf, type StreamMetadata } from '../../storage/streams/stream-metadata.js';
import type { NewEvent, WriteResult } from '../../storage/streams/write-types.js';
import { ALL_STREAMS, LongPollHub } from './long-poll.js';
import { warmOffLoop } from '../../storage/disk/cold-reads.js';
import type { Principal, StreamAccess, StreamOperation } from './stream-access.js';

export const LINK_EVENT_TYPE = '$>';
// The event number that reads a stream's last event.
const HEAD_EVENT = -1;

/** The engine surface the streams service uses. */
export type StreamStorage = Pick<Engine,
  'append' | 'deleteStream' | 'setStreamMetadata' | 'getStreamMetadata' | 'readEvent' | 'readStreamForward' |
  'readStreamBackward' | 'readAllForward' | 'readAllBackward' | 'beforeAcknowledge' | 'follow' | 'status' | 'readTurn'>;

/** An event as a reader sees it: the event, and the link it was reached through if resolved. */
export interface ResolvedEvent {
  event: EventRecord;
  link?: EventRecord;
  /** For a link whose target is gone (its stream deleted, or the event), the event it names. */
  missingTarget?: LinkTarget;
}

export interface LinkTarget {
  streamName: string;
  eventNumber: number;
}

export interface ResolvedPage extends Omit<StreamPage, 'events'> {
  events: ResolvedEvent[];
}

export interface ResolvedRead {
  status: 'success' | 'notFound' | 'deleted';
  event?: ResolvedEvent;
  lastEventNumber: number;
}

export class StreamsService {
  readonly longPolls: LongPollHub;

  constructor(private readonly storage: StreamStorage, private readonly access: StreamAccess) {
    this.longPolls = new LongPollHub((options) => storage.follow(options));
  }

  private check(principal: Principal | undefined, operation: StreamOperation, streamName: string): void {
    // A metadata stream's events are its stream's metadata, guarded by the metadata rights.
    if (isMetadataStream(streamName)) {
      const metadataOperation = operation === 'read' ? 'metadataRead' : operation === 'write' ? 'metadataWrite' : operation;
      this.access.check(principal, metadataOperation, originalStreamOf(streamName));
      return;
    }
    this.access.check(principal, operation, streamName);
  }

  /**
   * Throws the coded 401 unless `principal` may read `streamName` (`$all` for the log), or its
   * metadata when `metadata` is set: for a refusal that must not come before the caller's rights.
   */
  checkRead(principal: Principal | undefined, streamName: string, metadata = false): void {
    if (metadata) this.access.check(principal, 'metadataRead', streamName);
    else this.check(principal, 'read', streamName);
  }

  append(principal: Principal | undefined, streamName: string, expectedVersion: number, events: NewEvent[]): Promise<WriteResult> {
    // The rights come from the stream's metadata: a cold stream's is read off the event loop.
    const checking = warmOffLoop(() => this.check(principal, 'write', streamName));
    if (checking === undefined) return this.storage.append(streamName, expectedVersion, events);
    return checking.then(() => this.storage.append(streamName, expectedVersion, events));
  }

  deleteStream(principal: Principal | undefined, streamName: string, expectedVersion: number, hard: boolean): Promise<WriteResult> {
    this.check(principal, 'delete', streamName);
    return this.storage.deleteStream(streamName, expectedVersion, hard);
  }

  writeMetadata(principal: Principal | undefined, streamName: string, expectedVersion: number, metadata: Buffer, eventId: string, eventType?: string): Promise<WriteResult> {
    this.access.check(principal, 'metadataWrite', streamName);
    return this.storage.setStreamMetadata(streamName, expectedVersion, metadata, eventId, eventType);
  }

  /** A page read's turn while appends wait (Engine.readTurn): resolves with the function that ends it. */
  readTurn(): Promise<() => void> {
    return this.storage.readTurn();
  }

  readEvent(principal: Principal | undefined, streamName: string, eventNumber: number, resolveLinks: boolean): ResolvedRead {
    this.check(principal, 'read', streamName);
    const read = this.storage.readEvent(streamName, eventNumber);
    return { ...read, event: read.event && this.resolve(principal, read.event, resolveLinks) };
  }

  readForward(principal: Principal | undefined, streamName: string, from: number, count: number, resolveLinks: boolean): ResolvedPage {
    this.check(principal, 'read', streamName);
    return this.resolvePage(principal, this.storage.readStreamForward(streamName, from, count), resolveLinks);
  }

  /** A forward page of a feed: only the events of its range, so that pages never overlap. */
  readForwardPage(principal: Principal | undefined, streamName: string, from: number, count: number, resolveLinks: boolean): ResolvedPage {
    this.check(principal, 'read', streamName);
    return this.resolvePage(principal, this.storage.readStreamForward(streamName, from, count, 'range'), resolveLinks);
  }

  readBackward(principal: Principal | undefined, streamName: string, from: number, count: number, resolveLinks: boolean): ResolvedPage {
    this.check(principal, 'read', streamName);
    return this.resolvePage(principal, this.storage.readStreamBackward(streamName, from, count), resolveLinks);
  }

  readAllForward(principal: Principal | undefined, position: number, count: number, filter?: AllFilter): AllPage {
    this.access.check(principal, 'read', ALL_STREAMS);
    return this.storage.readAllForward(position, count, filter);
  }

  readAllBackward(principal: Principal | undefined, position: number, count: number, filter?: AllFilter): AllPage {
    this.access.check(principal, 'read', ALL_STREAMS);
    return this.storage.readAllBackward(position, count, filter);
  }

  /**
   * Whether `streamName` exists, asked by a reader of its metadata: only the metadata read right
   * is checked, as it governs metadata reads, and the answer tells no more than the metadata
   * stream's own 404 would.
   */
  existenceForMetadata(principal: Principal | undefined, streamName: string): ResolvedRead['status'] {
    this.access.check(principal, 'metadataRead', streamName);
    return this.storage.readEvent(streamName, HEAD_EVENT).status;
  }

  /** The metadata of `streamName` as it takes effect, without an access check: for the node's own use. */
  metadataOf(streamName: string): StreamMetadata {
    return this.storage.getStreamMetadata(streamName).metadata;
  }

  /** `record` as `principal` sees it: a link resolved to its target when asked and allowed. */
  resolveEvent(principal: Principal | undefined, record: EventRecord, resolveLinks: boolean): ResolvedEvent {
    return this.resolve(principal, record, resolveLinks);
  }

  /** The metadata stream name of `streamName`, for reads of `/streams/{s}/metadata`. */
  metadataStreamOf(streamName: string): string {
    return metadataStreamOf(streamName);
  }

  /** The end of the log, for $all heads and their ETags. */
  get logEnd(): number {
    return this.storage.status().readableEnd;
  }

  /** Changes with every chunk replacement (a redaction, a scavenge), restarts included: part of every ETag. */
  get contentEpoch(): number {
    return this.storage.status().contentEpoch;
  }

  /**
   * What a rendered page depends on: the end of the log and the chunks replaced so far (a
   * scavenge or a redaction changes records without writing).
   */
  get contentVersion(): string {
    const { readableEnd, chunkReplacements } = this.storage.status();
    return `${readableEnd}/${chunkReplacements}`;
  }

  private resolvePage(principal: Principal | undefined, page: StreamPage, resolveLinks: boolean): ResolvedPage {
    return { ...page, events: page.events.map((event) => this.resolve(principal, event, resolveLinks)) };
  }

  /**
   * A link event (`$>`, data `{n}@{stream}`) stands for the event it points at, when asked and
   * when the caller may read the target; a link that cannot be resolved stays itself.
   */
  private resolve(principal: Principal | undefined, record: EventRecord, resolveLinks: boolean): ResolvedEvent {
    if (!resolveLinks || record.eventType !== LINK_EVENT_TYPE) return { event: record };
    const target = parseLink(record.data.toString('utf8'));
    if (!target) return { event: record };
    try {
      this.check(principal, 'read', target.streamName);
      const read = this.storage.readEvent(target.streamName, target.eventNumber);
      return read.event ? { event: read.event, link: record } : { event: record, missingTarget: target };
    } catch {
      // A target the caller may not read, or a malformed name, leaves the link unresolved.
      return { event: record };
    }
  }
}

export function parseLink(data: string): LinkTarget | undefined {
  const at = data.indexOf('@');
  if (at <= 0) return undefined;
  const eventNumber = Number(data.slice(0, at));
  const streamName = data.slice(at + 1);
  return Number.isSafeInteger(eventNumber) && eventNumber >= 0 && streamName ? { streamName, eventNumber } : undefined;
}
