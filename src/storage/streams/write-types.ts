/**
 * The types of a write to streams, shared by the engine, the stream decider, the request checks
 * and the node's services. A leaf (it names only NewEvent, another leaf), so that none of them
 * imports another for its types.
 */
import type { SvcError } from '../../common/errors.js';
import type { NewEvent } from '../log/new-event.js';

export type { NewEvent };

export interface WriteResult {
  firstEventNumber: number;
  lastEventNumber: number;
  /** Log position of the first record written (or of the original write when idempotent). */
  logPosition: number;
  /** True when every event id was already written at this place: nothing new was written. */
  idempotent: boolean;
}

/** `completeChunk` writes nothing: it completes the ongoing chunk (one holding a scavenge point). */
export type WriteKind = 'append' | 'softDelete' | 'hardDelete' | 'completeChunk';

export interface WriteRequest {
  kind: WriteKind;
  streamName: string;
  expectedVersion: number;
  /** The events to append; for a hard delete the tombstone, for a soft delete none. */
  events: NewEvent[];
  /** The framed size of `events`, when the caller already measured it. */
  framedBytes?: number;
  /** Checks of the body that come after those of the stream (expected version, deletion). */
  check?: () => SvcError | undefined;
  /** See AppendOptions. */
  followUp?: boolean;
}

export interface AppendOptions {
  /**
   * The append follows from a commit (a log consumer writing what it derives, such as the links
   * of a projection): the writer does not hold a commit back to gather such appends, so that the
   * consumers do their work while that commit is flushed and their appends go in the next one.
   * Nor does it remember their ids for the idempotency of expected version "any": the consumer
   * knows what it wrote before.
   */
  followUp?: boolean;
}

/** Records committed in one group commit, handed to the engine to index and publish. */
export interface CommittedWrite {
  streamName: string;
  firstEventNumber: number;
  lastEventNumber: number;
  positions: number[];
  events: NewEvent[];
}
