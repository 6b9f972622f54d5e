/**
 * Calculation: for every stream with metadata or a tombstone, reads its index entries below the
 * scavenge point (from its last discard point on), moves its discard points and weighs the
 * chunks of the events that become removable. Streams go in key order (hash-keyed streams, then
 * colliding names), read in batches and calculated in steps, one transaction and checkpoint per
 * step: a step ends after the stream that takes it past EVENTS_PER_STEP index entries.
 */
import type Database from 'better-sqlite3';
import { RecordKind } from '../../log/record.js';
import { DELETED_EVENT_NUMBER } from '../../streams/stream-metadata.js';
import type { RunContext } from './context.js';
import { discardPointsOf } from './discard-points.js';
import { StreamStatus, originalOf, type OriginalRow, type OriginalStreamData } from './stream-data.js';
import { DEFINITE_WEIGHT, MAYBE_WEIGHT } from './weights.js';

const STREAMS_PER_BATCH = 512;
const EVENTS_PER_READ = 8192;
/**
 * Index entries examined in one step, about a millisecond or two of work: the event loop turns
 * between steps. Batches of 512 whole streams held it for 150 ms when the streams were long.
 */
const EVENTS_PER_STEP = 16_384;

interface Located {
  eventNumber: number;
  position: number;
}

interface Batch {
  handles: string[];
  streams: OriginalStreamData[];
}

/** The next batch of streams after `done` (a handle: `h:<hash>` or `n:<name>`). */
function nextBatch(db: Database.Database, done: string): Batch {
  const statuses = `status IN (${StreamStatus.none}, ${StreamStatus.active}, ${StreamStatus.archived})`;
  const columns = 'key, name, isTombstoned, maxAge, maxCount, truncateBefore, discardPoint, maybeDiscardPoint, status';
  const batch: Batch = { handles: [], streams: [] };
  const add = (rows: Array<OriginalRow & { key: bigint | string }>, prefix: string) => {
    for (const row of rows) {
      batch.handles.push(`${prefix}${String(row.key)}`);
      batch.streams.push(originalOf(row));
    }
  };
  if (!done.startsWith('n:')) {
    const after = done === '' ? -(2n ** 63n) : BigInt(done.slice(2)) + 1n;
    const rows = db.prepare(`SELECT ${columns} FROM OriginalStreamDatas WHERE key >= ? AND ${statuses} ORDER BY key LIMIT ?`).safeIntegers(true)
      .all(after, STREAMS_PER_BATCH) as Array<Record<string, unknown>>;
    add(rows.map((row) => numbersOf(row)), 'h:');
    if (rows.length > 0) return batch;
  }
  const afterName = done.startsWith('n:') ? done.slice(2) : '';
  const rows = db.prepare(`SELECT ${columns} FROM OriginalStreamDataCollisions WHERE key > ? AND ${statuses} ORDER BY key LIMIT ?`)
    .all(afterName, STREAMS_PER_BATCH) as Array<OriginalRow & { key: string }>;
  add(rows, 'n:');
  return batch;
}

/** Rows read with safe integers: every column but the key back to numbers. */
function numbersOf(row: Record<string, unknown>): OriginalRow & { key: bigint } {
  const converted: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) converted[name] = name !== 'key' && typeof value === 'bigint' ? Number(value) : value;
  return converted as unknown as OriginalRow & { key: bigint };
}

/** Calculates every stream; false when stopped. */
export async function calculate(context: RunContext): Promise<boolean> {
  let streamsDone = 0;
  for (;;) {
    if (context.shouldStop()) return false;
    const batch = nextBatch(context.db, context.checkpoint.doneStreamHandle);
    if (batch.streams.length === 0) return true;
    for (let next = 0; next < batch.streams.length;) {
      if (context.shouldStop()) return false;
      context.transaction(() => {
        for (let examined = 0; next < batch.streams.length && examined < EVENTS_PER_STEP; next++) {
          examined += calculateStream(context, batch.streams[next]);
        }
        context.saveCheckpoint({ doneStreamHandle: batch.handles[next - 1] });
      });
      context.progress(streamsDone + next, 'streams');
      await context.throttle.rest();
    }
    streamsDone += batch.streams.length;
  }
}

/** The stream's events from `from` on that lie before the scavenge point, ascending. */
function eventsBeforePoint(context: RunContext, stream: OriginalStreamData, from: number): Located[] {
  const { access, point, keys } = context;
  const last = access.lastEventNumber(stream.name);
  const confirm = keys.isCollision(stream.name);
  const found: Located[] = [];
  const end = last === DELETED_EVENT_NUMBER ? DELETED_EVENT_NUMBER : last;
  for (let start = from; start <= end && start >= 0; start += EVENTS_PER_READ) {
    // A tombstoned stream's events end before the tombstone's number: read them all at once.
    const to = last === DELETED_EVENT_NUMBER ? DELETED_EVENT_NUMBER : Math.min(start + EVENTS_PER_READ - 1, end);
    for (const entry of access.indexEntries(stream.name, start, to)) {
      if (entry.logPosition >= point.position) continue;
      // A colliding name shares its hash: an entry found by hash is confirmed against the log.
      if (confirm && !entry.exact) {
        const record = access.readRecordIfKept(entry.logPosition);
        if (record?.kind !== RecordKind.event || record.streamName !== stream.name) continue;
      }
      if (found.length > 0 && found[found.length - 1].eventNumber === entry.eventNumber) continue;
      found.push({ eventNumber: entry.eventNumber, position: entry.logPosition });
    }
    if (to === DELETED_EVENT_NUMBER) break;
  }
  return found;
}

/** Moves the stream's discard points and weighs its chunks; returns the number of index entries it examined. */
function calculateStream(context: RunContext, stream: OriginalStreamData): number {
  if (stream.isTombstoned && stream.discardPoint === DELETED_EVENT_NUMBER) return 0;
  const events = eventsBeforePoint(context, stream, stream.discardPoint);
  const lastBeforePoint = events.length > 0 ? events[events.length - 1].eventNumber : stream.discardPoint - 1;
  const points = discardPointsOf(stream, lastBeforePoint);
  const cutoff = stream.maxAgeSeconds === undefined ? -Infinity : context.point.effectiveNowMs - stream.maxAgeSeconds * 1000;
  // Summed per chunk first: one row update per chunk rather than one per event.
  const weights = new Map<number, number>();
  const weigh = (chunkNumber: number, weight: number) => weights.set(chunkNumber, (weights.get(chunkNumber) ?? 0) + weight);
  for (const event of events) {
    if (event.eventNumber === DELETED_EVENT_NUMBER) continue;
    const chunkNumber = context.chunkOf(event.position);
    if (event.eventNumber < points.discardPoint) {
      weigh(chunkNumber, DEFINITE_WEIGHT);
    } else if (event.eventNumber < points.maybeDiscardPoint) {
      const range = context.chunks.timeRange(chunkNumber);
      if (range === undefined || range.min >= cutoff) continue;
      weigh(chunkNumber, range.max < cutoff ? DEFINITE_WEIGHT : MAYBE_WEIGHT);
    }
  }
  for (const [chunkNumber, weight] of weights) context.chunks.weigh(chunkNumber, weight);
  context.data.putOriginalStream({ ...stream, ...points });
  return events.length;
}
