/**
 * Writes what a projection emits, so that processing an event twice writes its events once.
 *
 * Every emitted event carries the log position of the event that caused it (`$p`, with the
 * projection's epoch in `$v`) and an id derived from the projection, the epoch, that position and
 * its place among that event's emits. A projection that resumes from its checkpoint processes
 * again the events after it, some of whose emits were written before a crash: for each target
 * stream first written after the restart, the last event the projection wrote there tells how
 * far it got, and emits up to there are skipped (all emits of one event into one stream go in one
 * append, so they were written whole or not at all). Others may have written to the stream since
 * (clients, other projections): the stream is read backwards past their events, down to where
 * the projection resumed reading. The ids are derived from the projection, its epoch and the
 * cause, so an emit has the same id in every run, and they tell its own events from the others'.
 */
import { createHash } from 'node:crypto';
import type { Engine } from '../../storage/engine.js';
import type { EventRecord } from '../../storage/log/record.js';
import { ExpectedVersion } from '../../storage/streams/stream-metadata.js';
import type { NewEvent } from '../../storage/streams/write-types.js';
import { EmittedEventPacker, isEmittedEventId } from './emit-bytes.js';
import type { Emit } from './processor.js';

export type EmitterStorage = Pick<Engine, 'append' | 'readStreamBackward'>;

/** Events read at most at once, backwards from a target stream's end, looking for the projection's last emit. */
const RECOVERY_READ_EVENTS_MAX = 1000;

/**
 * Appends of one batch submitted to the writer at once. A batch that writes to more streams is
 * written a slice at a time, each once the one before is durable: 125k emits to distinct streams
 * are otherwise 125k appends queued at once for the writer.
 */
const APPENDS_AT_ONCE_MAX = 1000;

/** Emitted events follow from the events the projection read: appends nobody waits on to commit. */
const FOLLOW_UP = Object.freeze({ followUp: true });

/** The event that caused an emit: emitted events name its position and id. */
export interface EmitCause {
  position: number;
  event: { eventId: string };
}

/** 16 hex digits that stand for a projection and its epoch in the ids of its emitted events. */
export function emitterPrefix(projection: string, epoch: number): string {
  return createHash('md5').update(`${projection}\u0000${epoch}`).digest('hex').slice(0, 16);
}

/** The projection's own properties after those of the code's metadata, when it has a JSON object (the packer writes them alone). */
function metadataOf(code: string, epoch: number, cause: EmitCause): Buffer {
  const own = `"$v":"${epoch}","$c":${cause.position},"$p":${cause.position},"$causedBy":"${cause.event.eventId}"`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(code);
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return Buffer.from(`{${own}}`);
  const mine = JSON.parse(`{${own}}`) as Record<string, unknown>;
  return Buffer.from(JSON.stringify({ ...(parsed as Record<string, unknown>), ...mine }));
}

/** The position and epoch an emitted event names, if it is one. */
function emittedTag(event: EventRecord): { position: number; epoch: number } | undefined {
  if (event.metadata.length === 0 || event.metadata[0] !== 0x7b) return undefined;
  try {
    const metadata = JSON.parse(event.metadata.toString('utf8')) as { $p?: unknown; $v?: unknown };
    if (typeof metadata.$p !== 'number' || typeof metadata.$v !== 'string') return undefined;
    return { position: metadata.$p, epoch: Number(metadata.$v) };
  } catch {
    return undefined;
  }
}

export class Emitter {
  /** Per target stream written since the start: the source position its last emitted event names. */
  private readonly lastWritten = new Map<string, number>();
  private readonly packer: EmittedEventPacker;
  private readonly prefix: string;
  /**
   * While a batch is written in slices: settles once its last slice is submitted. The batches
   * after it wait for that, so that every stream still gets its events in the order emitted.
   */
  private backlog: Promise<void> | undefined;

  /**
   * @param recoveryEnd the log's end when the projection started: events after it were never
   * processed before, so their emits need no check.
   * @param resumedFrom the log position the projection resumed reading from (its checkpoint's):
   * the emits of the events processed again were all written after it.
   */
  constructor(
    private readonly storage: EmitterStorage,
    private readonly projection: string,
    private readonly epoch: number,
    private recoveryEnd: number,
    private readonly resumedFrom: number,
  ) {
    this.prefix = emitterPrefix(projection, epoch);
    this.packer = new EmittedEventPacker(this.prefix, epoch);
  }

  /**
   * Writes the emits of one batch, in order per stream, every stream at once; resolves when all
   * are durable. `causes[emit.sourceIndex]` is the event that caused each emit; `onStream` hears
   * every stream the batch writes to, for tracking.
   *
   * The events to write are made at once and the causes are not held while they are written:
   * a page of source events kept until its writes are durable would outlive the young
   * generation, and moving it to the old one is most of the collector's work.
   */
  write(emits: readonly Emit[], causes: readonly EmitCause[], onStream?: (streamName: string) => void): Promise<void> {
    if (emits.length === 0) return Promise.resolve();
    const byStream = this.newEvents(emits, causes, onStream);
    return this.appendAll(byStream, causes[emits[emits.length - 1].sourceIndex].position);
  }

  /** The events of one batch by target stream, each emit in its place, less those written before a restart. */
  private newEvents(emits: readonly Emit[], causes: readonly EmitCause[], onStream?: (streamName: string) => void): Map<string, NewEvent[]> {
    const byStream = new Map<string, NewEvent[]>();
    // Decided against what the streams held before this batch: one event may emit several events into one stream.
    const written = this.recoveryEnd >= 0 ? new Map<string, number>() : undefined;
    let previous = -1;
    let index = 0;
    const packer = this.packer;
    for (const emit of emits) {
      const cause = causes[emit.sourceIndex];
      index = previous === cause.position ? index + 1 : 0;
      previous = cause.position;
      if (written && this.alreadyWritten(emit.streamName, cause.position)) continue;
      let events = byStream.get(emit.streamName);
      if (!events) {
        events = [];
        byStream.set(emit.streamName, events);
        onStream?.(emit.streamName);
      }
      const codeMetadata = emit.metadata === '' ? undefined : metadataOf(emit.metadata, this.epoch, cause);
      events.push(packer.pack(emit, cause.position, index, cause.event, codeMetadata));
      written?.set(emit.streamName, cause.position);
    }
    if (written) for (const [streamName, position] of written) this.lastWritten.set(streamName, position);
    return byStream;
  }

  private async appendAll(byStream: Map<string, NewEvent[]>, lastPosition: number): Promise<void> {
    const appends = [...byStream];
    // Submitted now, as the batches before it were, unless it is large or waits behind one that is.
    if (this.backlog === undefined && appends.length <= APPENDS_AT_ONCE_MAX) await this.appendSlice(appends);
    else await this.appendInSlices(appends);
    // Past the end of the log of the previous run, no emit can have been written before.
    if (lastPosition >= this.recoveryEnd) {
      this.recoveryEnd = -1;
      this.lastWritten.clear();
    }
  }

  private appendSlice(appends: ReadonlyArray<[string, NewEvent[]]>): Promise<unknown> {
    return Promise.all(appends.map(([streamName, events]) => this.append(streamName, events)));
  }

  private async appendInSlices(appends: ReadonlyArray<[string, NewEvent[]]>): Promise<void> {
    const previous = this.backlog;
    let submittedAll: () => void = () => undefined;
    const backlog = new Promise<void>((resolve) => {
      submittedAll = resolve;
    });
    this.backlog = backlog;
    try {
      await previous;
      for (let start = 0; ; start += APPENDS_AT_ONCE_MAX) {
        const slice = this.appendSlice(appends.slice(start, start + APPENDS_AT_ONCE_MAX));
        if (start + APPENDS_AT_ONCE_MAX >= appends.length) {
          submittedAll();
          await slice;
          return;
        }
        await slice;
      }
    } finally {
      // A failed slice ends the batch: the projection faults, and those waiting go on to fail too.
      submittedAll();
      if (this.backlog === backlog) this.backlog = undefined;
    }
  }

  private alreadyWritten(streamName: string, position: number): boolean {
    if (this.recoveryEnd < 0 || position >= this.recoveryEnd) return false;
    let last = this.lastWritten.get(streamName);
    if (last === undefined) {
      last = this.lastEmittedPosition(streamName);
      this.lastWritten.set(streamName, last);
    }
    return position <= last;
  }

  /**
   * The cause position of the last event this projection emitted into the stream since it resumed
   * reading; -1 when there is none. Most streams a projection emits to are its own, and their last
   * event settles it: the first read is of one event, the next ones of more.
   */
  private lastEmittedPosition(streamName: string): number {
    let from = -1;
    let count = 1;
    for (;;) {
      const page = this.storage.readStreamBackward(streamName, from, count);
      for (const event of page.events) {
        if (event.logPosition < this.resumedFrom) return -1;
        const position = this.ownEmitPosition(event);
        if (position !== undefined) return position;
      }
      if (page.isEndOfStream || page.events.length === 0) return -1;
      from = page.nextEventNumber;
      count = Math.min(count * 10, RECOVERY_READ_EVENTS_MAX);
    }
  }

  /** The cause position an event names when this projection emitted it in this epoch. */
  private ownEmitPosition(event: EventRecord): number | undefined {
    const tag = emittedTag(event);
    if (!tag || tag.epoch !== this.epoch) return undefined;
    return isEmittedEventId(this.prefix, tag.position, event.eventId) ? tag.position : undefined;
  }

  /** One append per stream. */
  private async append(streamName: string, events: NewEvent[]): Promise<void> {
    await this.storage.append(streamName, ExpectedVersion.any, events, FOLLOW_UP);
  }
}
