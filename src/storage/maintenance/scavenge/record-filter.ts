/**
 * Whether a chunk rewrite keeps a record: everything at or after the scavenge point, system
 * records, tombstones and the latest metadata record stay; a stream's events below its discard
 * point go, and those below its maybe-discard point go once older than its $maxAge (measured
 * against the point's EffectiveNow). A hard delete takes the metadata stream with it.
 */
import { EventFlags, RecordKind, type RecordHead } from '../../log/record.js';

type EventHead = Extract<RecordHead, { kind: typeof RecordKind.event }>;
import { isMetadataStream } from '../../streams/stream-metadata.js';
import type { MetastreamData, OriginalStreamData, StreamData } from './stream-data.js';
import type { ScavengePoint } from './types.js';

export class RecordFilter {
  private readonly metastreams = new Map<string, MetastreamData | undefined>();
  private readonly originals = new Map<string, OriginalStreamData | undefined>();

  constructor(private readonly data: StreamData, private readonly point: ScavengePoint) {}

  readonly keep = (record: RecordHead): boolean => {
    if (record.kind !== RecordKind.event || record.logPosition >= this.point.position) return true;
    return isMetadataStream(record.streamName) ? this.keepMetadata(record) : this.keepEvent(record);
  };

  private keepMetadata(record: EventHead): boolean {
    if (!this.metastreams.has(record.streamName)) this.metastreams.set(record.streamName, this.data.metastream(record.streamName));
    const metastream = this.metastreams.get(record.streamName);
    if (metastream === undefined) return true;
    return !metastream.isTombstoned && record.eventNumber >= metastream.discardPoint;
  }

  private keepEvent(record: EventHead): boolean {
    if (!this.originals.has(record.streamName)) this.originals.set(record.streamName, this.data.originalStream(record.streamName));
    const stream = this.originals.get(record.streamName);
    if (stream === undefined) return true;
    if (stream.isTombstoned) return (record.flags & EventFlags.streamDelete) !== 0;
    if (record.eventNumber < stream.discardPoint) return false;
    if (stream.maxAgeSeconds === undefined || record.eventNumber >= stream.maybeDiscardPoint) return true;
    return record.timestamp >= this.point.effectiveNowMs - stream.maxAgeSeconds * 1000;
  }
}
