/**
 * Accumulation: reads the log once, from where the last run's accumulation ended up to the
 * scavenge point, one logical chunk per transaction (with the checkpoint). It notes every stream
 * name (hash collisions), the latest metadata of each stream, tombstones, and each chunk's record
 * time range, and weighs the chunks of records that metadata or a tombstone made removable.
 */
import { EventFlags, RecordKind, isJsonEvent, type EventRecord } from '../../log/record.js';
import { isMetadataStream, metadataStreamOf, originalStreamOf, parseStoredMetadata } from '../../streams/stream-metadata.js';
import type { RunContext } from './context.js';
import { StreamStatus, type OriginalStreamData } from './stream-data.js';
import { DEFINITE_WEIGHT, type TimeRange } from './weights.js';

/**
 * Bytes of records accumulated in one step, each step its own transaction and checkpoint: the
 * event loop turns between steps, and an append in the same process waits for a step at each of
 * its turns (about two per group commit). A 256 KiB slice is about a millisecond of work; 2 MiB
 * slices kept the event loop's delay at ~6 ms (p90) during a scavenge, 256 KiB at ~1.6 ms.
 */
const SLICE_BYTES = 256 * 1024;

function emptyOriginal(name: string): OriginalStreamData {
  return {
    name, isTombstoned: false, maxAgeSeconds: undefined, maxCount: undefined, truncateBefore: undefined,
    discardPoint: 0, maybeDiscardPoint: 0, status: StreamStatus.none,
  };
}

/** Accumulates up to the point; false when stopped (the checkpoint says how far it got). */
export async function accumulate(context: RunContext): Promise<boolean> {
  const { access, checkpoint, point } = context;
  const chunkSize = access.chunkSizeBytes;
  while (checkpoint.accumulatedTo < point.position) {
    if (context.shouldStop()) return false;
    const from = checkpoint.accumulatedTo;
    const chunkNumber = Math.floor(from / chunkSize);
    const end = Math.min(point.position, (chunkNumber + 1) * chunkSize);
    context.transaction(() => {
      const to = accumulateRange(context, chunkNumber, from, end);
      context.saveCheckpoint({ accumulatedTo: to, doneLogicalChunkNumber: to >= end ? chunkNumber : chunkNumber - 1 });
    });
    context.progress(chunkNumber + 1, 'chunks');
    await context.throttle.rest();
  }
  return true;
}

/** Accumulates the records from `from` on, up to `to` or a slice's worth of them; returns where it stopped. */
function accumulateRange(context: RunContext, chunkNumber: number, from: number, to: number): number {
  let range: TimeRange | undefined;
  const reached = context.access.scan(from, to, (record) => {
    if (record.kind !== RecordKind.event) return;
    range = range ? { min: Math.min(range.min, record.timestamp), max: Math.max(range.max, record.timestamp) } : { min: record.timestamp, max: record.timestamp };
    const collided = context.keys.notice(record.streamName);
    if (collided.length > 0) context.logger.warn({ streams: collided }, 'scavenge found streams whose hashes collide');
    if (isMetadataStream(record.streamName)) accumulateMetadata(context, record);
    else if ((record.flags & EventFlags.streamDelete) !== 0) accumulateTombstone(context, record);
  }, SLICE_BYTES);
  if (range) context.chunks.widenTimeRange(chunkNumber, range);
  return reached;
}

/** A newer metadata record replaces the one before it, which becomes removable. */
function accumulateMetadata(context: RunContext, record: EventRecord): void {
  const { data, chunks } = context;
  const previous = data.metastream(record.streamName);
  if (previous && previous.lastPosition >= 0 && !previous.isTombstoned) chunks.weigh(context.chunkOf(previous.lastPosition), DEFINITE_WEIGHT);
  data.putMetastream({
    name: record.streamName, isTombstoned: previous?.isTombstoned ?? false,
    discardPoint: Math.max(previous?.discardPoint ?? 0, record.eventNumber), lastPosition: record.logPosition,
  });
  const streamName = originalStreamOf(record.streamName);
  const original = data.originalStream(streamName) ?? emptyOriginal(streamName);
  if (original.isTombstoned) return;
  const metadata = parseStoredMetadata(record.data, isJsonEvent(record));
  const active = metadata.maxAgeSeconds !== undefined || metadata.maxCount !== undefined || metadata.truncateBefore !== undefined;
  data.putOriginalStream({
    ...original, maxAgeSeconds: metadata.maxAgeSeconds, maxCount: metadata.maxCount, truncateBefore: metadata.truncateBefore,
    status: active ? StreamStatus.active : original.status === StreamStatus.none ? StreamStatus.none : StreamStatus.spent,
  });
}

/** A hard delete removes the stream's events but the tombstone, and its whole metadata stream. */
function accumulateTombstone(context: RunContext, record: EventRecord): void {
  const { data, chunks } = context;
  const original = data.originalStream(record.streamName) ?? emptyOriginal(record.streamName);
  data.putOriginalStream({ ...original, isTombstoned: true, status: StreamStatus.archived });
  const metastreamName = metadataStreamOf(record.streamName);
  const metastream = data.metastream(metastreamName);
  if (metastream && metastream.lastPosition >= 0 && !metastream.isTombstoned) chunks.weigh(context.chunkOf(metastream.lastPosition), DEFINITE_WEIGHT);
  data.putMetastream({ name: metastreamName, isTombstoned: true, discardPoint: metastream?.discardPoint ?? 0, lastPosition: metastream?.lastPosition ?? -1 });
}
