/**
 * Scavenge points: ordinary events of `$scavengePoints`, type `$scavengePoint`, data
 * `{"threshold":N}`. The event number is the point's number, its log position the position the
 * scavenge runs up to (exclusive), its timestamp the EffectiveNow that `$maxAge` is measured
 * against. Writing one completes the chunk it lands in, so every point closes a chunk.
 */
import { randomUUID } from 'node:crypto';
import type { Engine } from '../../storage/engine.js';
import type { EventRecord } from '../../storage/log/record.js';
import type { ScavengePoint } from '../../storage/maintenance/scavenge/types.js';

export const SCAVENGE_POINTS_STREAM = '$scavengePoints';
export const SCAVENGE_POINT_EVENT_TYPE = '$scavengePoint';

export type PointStorage = Pick<Engine, 'append' | 'readEvent' | 'readStreamBackward' | 'completeActiveChunk'>;

function thresholdOf(event: EventRecord): number {
  try {
    const threshold = (JSON.parse(event.data.toString('utf8')) as { threshold?: unknown }).threshold;
    return typeof threshold === 'number' && Number.isSafeInteger(threshold) ? threshold : 0;
  } catch {
    return 0;
  }
}

export function pointOf(event: EventRecord): ScavengePoint {
  return Object.freeze({
    number: event.eventNumber, position: event.logPosition, effectiveNowMs: event.timestamp, threshold: thresholdOf(event),
  });
}

/** The latest scavenge point written to the log, if any. */
export function latestPoint(storage: PointStorage): ScavengePoint | undefined {
  const page = storage.readStreamBackward(SCAVENGE_POINTS_STREAM, -1, 1);
  const event = page.events[0];
  return page.status === 'success' && event ? pointOf(event) : undefined;
}

/**
 * Writes point `previous + 1` (expected version `previous`, so two writers cannot both add the
 * same number), then completes its chunk.
 */
export async function writePoint(storage: PointStorage, threshold: number, previous: ScavengePoint | undefined): Promise<ScavengePoint> {
  const data = Buffer.from(JSON.stringify({ threshold }));
  const written = await storage.append(SCAVENGE_POINTS_STREAM, previous?.number ?? -1, [
    { eventId: randomUUID(), eventType: SCAVENGE_POINT_EVENT_TYPE, data, metadata: Buffer.alloc(0), isJson: true },
  ]);
  await storage.completeActiveChunk();
  const read = storage.readEvent(SCAVENGE_POINTS_STREAM, written.firstEventNumber);
  if (!read.event) throw new TypeError(`scavenge point ${written.firstEventNumber} was written but cannot be read back`);
  return pointOf(read.event);
}
