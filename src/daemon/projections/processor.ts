/**
 * What turns a projection's events into state and emitted events: the JavaScript runtime in a
 * sandbox for user projections, native code for the system projections. The runner reads, writes
 * and checkpoints; a processor only computes.
 */
import type { SourceEvent } from './source-event.js';

/** An event a projection asks to write; `sourceIndex` is the event of the batch that caused it. */
export interface Emit {
  sourceIndex: number;
  streamName: string;
  eventType: string;
  data: string;
  /** Metadata of the projection code (JSON text or empty); the runner adds its own properties. */
  metadata: string;
  isJson: boolean;
}

/** A partition's state after a batch, as JSON text; `result` is the output state when the projection outputs one. */
export interface PartitionChange {
  partition: string;
  state: string | null;
  result: string | null;
}

export interface BatchOutput {
  emits: Emit[];
  changes: PartitionChange[];
  /** The shared state of a biState projection, when it has one. */
  shared?: string | null;
  logs: string[];
}

/** The states a processor starts again from after a restart. */
export interface ProcessorSnapshot {
  states: Record<string, string | null>;
  shared: string | null;
}

export interface Processor {
  /** Which events the processor wants from the log. */
  readonly selects: EventSelector;
  /** With reorderEvents: how long each event is held before it is handed over (processingLag). */
  readonly reorderLagMs?: number;
  process(events: readonly SourceEvent[]): Promise<BatchOutput>;
  restore(snapshot: ProcessorSnapshot): Promise<void>;
  /** Heap bytes held for this processor, for statistics. */
  heapBytes(): number;
  /** Ends a batch under way at once (it rejects with SandboxTerminated); the processor is not used again. */
  terminate(): void;
  dispose(): void;
}

/** Where a processor's events come from. */
export interface EventSelector {
  all: boolean;
  /** Streams selected by name, the `$ce-` streams of selected categories among them. */
  streams: ReadonlySet<string>;
  /** Link events ($>) are given as themselves rather than skipped (fromAll with $includeLinks). */
  includeLinks: boolean;
  /** Links in selected streams are resolved to the events they point at. */
  resolveLinks: boolean;
  /** Tombstones of selected streams are given as deletions. */
  deletions: boolean;
}
