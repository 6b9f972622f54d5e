/**
 * Where a stream's discard points go, from its metadata and its last event before the scavenge
 * point. The last event is always kept, and points never move back.
 */
import { DELETED_EVENT_NUMBER } from '../../streams/stream-metadata.js';
import { StreamStatus, type OriginalStreamData } from './stream-data.js';

export interface DiscardPoints {
  discardPoint: number;
  maybeDiscardPoint: number;
  status: number;
}

export function discardPointsOf(stream: OriginalStreamData, lastBeforePoint: number): DiscardPoints {
  if (stream.isTombstoned) return { discardPoint: DELETED_EVENT_NUMBER, maybeDiscardPoint: DELETED_EVENT_NUMBER, status: StreamStatus.archived };
  let wanted = 0;
  if (stream.truncateBefore !== undefined) wanted = Math.max(wanted, stream.truncateBefore);
  if (stream.maxCount !== undefined) wanted = Math.max(wanted, lastBeforePoint - stream.maxCount + 1);
  const discardPoint = Math.max(stream.discardPoint, Math.min(wanted, Math.max(lastBeforePoint, 0)));
  const maybeDiscardPoint = stream.maxAgeSeconds === undefined ? discardPoint : Math.max(discardPoint, lastBeforePoint, stream.maybeDiscardPoint);
  const unspentTruncation = stream.truncateBefore !== undefined && discardPoint < stream.truncateBefore;
  const active = stream.maxAgeSeconds !== undefined || stream.maxCount !== undefined || unspentTruncation;
  return { discardPoint, maybeDiscardPoint, status: active ? StreamStatus.active : StreamStatus.spent };
}
