/**
 * The system projections, in native code: each reads every event of the non-system streams and
 * writes links ($>) or stream-name events ($@) into index streams that clients read
 * ($ce-, $et-, $category-, $streams, $bc-). Their sources are small configurations, changed
 * with PUT /projection/{name}/query while they are stopped.
 */
import { Errors } from '../../common/errors.js';
import type { EventRecord } from '../../storage/log/record.js';
import type { BatchOutput, Emit, EventSelector, Processor } from './processor.js';
import { DELETED_LINK_KEY, ORIGINAL_STREAM_KEY } from './select-events.js';
import type { SourceEvent } from './source-event.js';
import { eventNumberText } from '../../storage/streams/stream-metadata.js';

export const SYSTEM_PROJECTIONS = ['$by_category', '$by_event_type', '$stream_by_category', '$streams', '$by_correlation_id'] as const;
export type SystemProjectionName = (typeof SYSTEM_PROJECTIONS)[number];

export const isSystemProjection = (name: string): name is SystemProjectionName => (SYSTEM_PROJECTIONS as readonly string[]).includes(name);

/** The source each system projection is created with. */
export const SYSTEM_SOURCES: Record<SystemProjectionName, string> = {
  $by_category: 'first\n-',
  $by_event_type: '',
  $stream_by_category: 'first\n-',
  $streams: '',
  $by_correlation_id: '{"correlationIdProperty":"$correlationId"}',
};

export const LINK_TYPE = '$>';
export const STREAM_REFERENCE_TYPE = '$@';

const SELECTS_ALL: EventSelector = Object.freeze({
  all: true, streams: new Set<string>(), includeLinks: false, resolveLinks: false, deletions: false,
});

/** $by_category is also given the deletions of streams (hard and soft), which it links into the category too. */
const SELECTS_ALL_AND_DELETIONS: EventSelector = Object.freeze({ ...SELECTS_ALL, deletions: true });

type Extract = (streamName: string) => string | undefined;

/** Names kept by NameCache before it starts again. */
const NAMES_KEPT_MAX = 10_000;

/**
 * The target stream of each source name, made once: every event of the log is mapped, and a
 * target name made anew for each would be hashed anew at each use down to the writer.
 */
class NameCache {
  private readonly names = new Map<string, string | undefined>();

  constructor(private readonly make: (name: string) => string | undefined) {}

  get(name: string): string | undefined {
    const known = this.names.get(name);
    if (known !== undefined || this.names.has(name)) return known;
    if (this.names.size >= NAMES_KEPT_MAX) this.names.clear();
    const made = this.make(name);
    this.names.set(name, made);
    return made;
  }
}

/** `first\n-`: the category is the stream name up to the first (or last) separator. */
function categoryExtractor(name: string, source: string): Extract {
  const [which = 'first', separator = '-'] = source.split(/\r?\n/).map((line) => line.trim());
  if ((which !== 'first' && which !== 'last') || separator.length !== 1) {
    throw Errors.projectionQueryInvalid.create(name, 'the source is two lines: first or last, then a one-character separator (first\\n-)');
  }
  return (streamName) => {
    const at = which === 'first' ? streamName.indexOf(separator) : streamName.lastIndexOf(separator);
    return at > 0 ? streamName.slice(0, at) : undefined;
  };
}

function correlationProperty(name: string, source: string): string {
  if (source.trim() === '') return '$correlationId';
  try {
    const parsed = JSON.parse(source) as { correlationIdProperty?: unknown };
    if (typeof parsed.correlationIdProperty === 'string' && parsed.correlationIdProperty !== '') return parsed.correlationIdProperty;
  } catch {
    // Reported below with what the source must look like.
  }
  throw Errors.projectionQueryInvalid.create(name, 'the source is JSON: {"correlationIdProperty":"$correlationId"}');
}

/**
 * A link to `target` ($>, data `number@stream`), written by the packer from the event's number
 * and stream name: a system projection links every event of the log, and its data as a string
 * would be made only to be copied into the record.
 */
export class LinkEmit implements Emit {
  constructor(readonly sourceIndex: number, readonly streamName: string, readonly target: Pick<EventRecord, 'eventNumber' | 'streamName'>) {}

  // The same for every link: on the prototype, not in each of the many objects.
  get eventType(): string {
    return LINK_TYPE;
  }

  get metadata(): string {
    return '';
  }

  get isJson(): boolean {
    return false;
  }

  get data(): string {
    return `${this.target.eventNumber}@${this.target.streamName}`;
  }
}

const link = (sourceIndex: number, streamName: string, event: EventRecord): Emit => new LinkEmit(sourceIndex, streamName, event);

/** `deletedStream`: the event is the deletion of that stream (only $by_category is given deletions). */
type Map1 = (event: EventRecord, index: number, emits: Emit[], deletedStream?: string) => void;

/**
 * A link to a deletion names the deleted stream: a soft delete's record is in the metadata stream,
 * and a category projection must know which of its streams went.
 */
function deletionLink(sourceIndex: number, streamName: string, event: EventRecord, deletedStream: string): Emit {
  const data = `${eventNumberText(event.eventNumber)}@${event.streamName}`;
  const metadata = JSON.stringify({ [ORIGINAL_STREAM_KEY]: deletedStream, [DELETED_LINK_KEY]: -1 });
  return { sourceIndex, streamName, eventType: LINK_TYPE, data, metadata, isJson: false };
}

/** Builds the per-event function of a system projection from its source; a bad source is an error. */
function mapperOf(name: SystemProjectionName, source: string): Map1 {
  switch (name) {
    case '$by_category': {
      const category = categoryExtractor(name, source);
      const targets = new NameCache((streamName) => {
        const found = category(streamName);
        return found === undefined ? undefined : `$ce-${found}`;
      });
      return (event, index, emits, deletedStream) => {
        const target = targets.get(deletedStream ?? event.streamName);
        if (target === undefined) return;
        emits.push(deletedStream === undefined ? link(index, target, event) : deletionLink(index, target, event, deletedStream));
      };
    }
    case '$by_event_type': {
      const targets = new NameCache((eventType) => `$et-${eventType}`);
      return (event, index, emits) => void emits.push(link(index, targets.get(event.eventType)!, event));
    }
    case '$stream_by_category': {
      const category = categoryExtractor(name, source);
      return (event, index, emits) => {
        const found = event.eventNumber === 0 ? category(event.streamName) : undefined;
        if (found !== undefined) {
          emits.push({ sourceIndex: index, streamName: `$category-${found}`, eventType: STREAM_REFERENCE_TYPE, data: event.streamName, metadata: '', isJson: false });
        }
      };
    }
    case '$streams':
      return (event, index, emits) => {
        if (event.eventNumber === 0) emits.push(link(index, '$streams', event));
      };
    case '$by_correlation_id': {
      const property = correlationProperty(name, source);
      return (event, index, emits) => {
        const id = correlationIdOf(event, property);
        if (id !== undefined) emits.push(link(index, `$bc-${id}`, event));
      };
    }
  }
}

function correlationIdOf(event: EventRecord, property: string): string | undefined {
  if (event.metadata.length === 0 || event.metadata[0] !== 0x7b) return undefined;
  try {
    const value = (JSON.parse(event.metadata.toString('utf8')) as Record<string, unknown>)[property];
    return typeof value === 'string' && value !== '' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Checks a system projection's source; throws the coded error a PUT of the query answers with. */
export function checkSystemSource(name: SystemProjectionName, source: string): void {
  mapperOf(name, source);
}

export class SystemProcessor implements Processor {
  readonly selects: EventSelector;
  private readonly map: Map1;

  constructor(name: SystemProjectionName, source: string) {
    this.map = mapperOf(name, source);
    this.selects = name === '$by_category' ? SELECTS_ALL_AND_DELETIONS : SELECTS_ALL;
  }

  process(events: readonly SourceEvent[]): Promise<BatchOutput> {
    const emits: Emit[] = [];
    for (let i = 0; i < events.length; i++) this.map(events[i].event, i, emits, events[i].deletedStream);
    return Promise.resolve({ emits, changes: [], logs: [] });
  }

  restore(): Promise<void> {
    return Promise.resolve();
  }

  heapBytes(): number {
    return 0;
  }

  /** Its code runs on the node's thread, a batch at a time: nothing is under way to end. */
  terminate(): void {}

  dispose(): void {}
}
