/**
 * A projection's checkpoint: where to read on from, the position of the last event processed,
 * and every partition's state then. Written as `$ProjectionCheckpoint` events of
 * `$projections-{name}-checkpoint`; the last one of the projection's epoch is where it resumes.
 */
import { createHash } from 'node:crypto';
import { RECORD_PAYLOAD_BYTES_MAX, type EventRecord } from '../../storage/log/record.js';

export const CHECKPOINT_EVENT_TYPE = '$ProjectionCheckpoint';

export interface Checkpoint {
  epoch: number;
  /** The log position reading resumes from. */
  nextPosition: number;
  /** Log position of the last event processed; -1 before the first. */
  lastPosition: number;
  states: Record<string, string | null>;
  shared: string | null;
  /** For a projection of named streams (a category is its $ce- stream): the last event number handled in each. */
  streams?: StreamPositions;
  /**
   * For a one-time query that completed: the digest (queryDigest) of the query it completed. Such
   * a query stays Completed with its states until it is reset or its query changes.
   */
  completedQuery?: string;
}

/** The digest a completion checkpoint names its query by. */
export function queryDigest(query: string): string {
  return createHash('sha256').update(query).digest('hex');
}

/** Stream name → number of the last event handled in it (-1 before any). */
export type StreamPositions = Record<string, number>;

export const emptyCheckpoint = (epoch: number): Checkpoint => ({ epoch, nextPosition: 0, lastPosition: -1, states: {}, shared: null });

export function encodeCheckpoint(checkpoint: Checkpoint): { data: Buffer; metadata: Buffer } {
  const tag = { $v: String(checkpoint.epoch), $c: checkpoint.lastPosition, $p: checkpoint.lastPosition, $s: checkpoint.nextPosition };
  return { data: Buffer.from(JSON.stringify(checkpoint)), metadata: Buffer.from(JSON.stringify(tag)) };
}

/**
 * Why a checkpoint could not be written when the storage refused it as larger than one event may
 * be: it holds every partition's state, so the states together are what must shrink.
 */
export function checkpointTooLargeReason(projection: string, checkpoint: Checkpoint, dataBytes: number): string {
  const partitions = Object.keys(checkpoint.states).length;
  const held = partitions === 1 ? 'its state' : `the states of its ${partitions} partitions`;
  return `the checkpoint of projection ${projection} cannot be written: it holds ${held} in one event of ${dataBytes} bytes, ` +
    `over the limit of ${RECORD_PAYLOAD_BYTES_MAX} bytes for an event; make the states smaller (keep only what the result ` +
    'needs) or partition by fewer keys, then reset the projection';
}

/** The checkpoint an event holds, or undefined when it is not one this version wrote. */
export function decodeCheckpoint(event: EventRecord): Checkpoint | undefined {
  if (event.eventType !== CHECKPOINT_EVENT_TYPE) return undefined;
  try {
    const parsed = JSON.parse(event.data.toString('utf8')) as Partial<Checkpoint>;
    const valid = typeof parsed.epoch === 'number' && typeof parsed.nextPosition === 'number' &&
      typeof parsed.lastPosition === 'number' && parsed.states !== null && typeof parsed.states === 'object';
    return valid ? { shared: null, ...parsed } as Checkpoint : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The position header of state and result replies: the tag of the last event processed, a log
 * position for fromAll, the event number in each source stream for streams and categories.
 */
export function positionTag(lastPosition: number, streams?: StreamPositions): string {
  return JSON.stringify(streams ? { $s: streams } : { $c: lastPosition, $p: lastPosition });
}

/** The same position as the listings show it: `C:123/P:123`, or `$ce-foo: 5` (`; ` between streams). */
export function positionText(lastPosition: number, streams?: StreamPositions): string {
  if (streams) return Object.entries(streams).map(([stream, number]) => `${stream}: ${number}`).join('; ');
  return lastPosition < 0 ? '' : `C:${lastPosition}/P:${lastPosition}`;
}
