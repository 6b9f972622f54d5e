/**
 * A user projection's processor: its source in a sandbox. Events go in as batches whose size
 * adapts so that a batch takes a fraction of the execution timeout: the timeout then bounds what
 * one event may take, and fast handlers still get batches large enough to pay for the crossing.
 */
import { sourceStreams, type QueryDefinition } from './definition.js';
import type { BatchOutput, EventSelector, Processor, ProcessorSnapshot } from './processor.js';
import { Sandbox, type SandboxLimits } from './sandbox.js';
import { batchJson, type SourceEvent } from './source-event.js';

const BATCH_EVENTS_MAX = 500;
/** A batch should take at most this share of the execution timeout. */
const BATCH_TIMEOUT_SHARE = 0.25;

export class JsProcessor implements Processor {
  readonly selects: EventSelector;
  readonly reorderLagMs?: number;
  private batchEventsMax = 16;

  private constructor(private readonly sandbox: Sandbox, readonly definition: QueryDefinition, private readonly limits: SandboxLimits) {
    const { sources, options } = definition;
    this.selects = {
      all: sources.all, streams: new Set(sourceStreams(sources)),
      includeLinks: options.includeLinks, resolveLinks: !sources.all, deletions: definition.handlers.includes('$deleted'),
    };
    if (options.reorderEvents) this.reorderLagMs = options.processingLagMs;
  }

  /** Compiles `source`; a source that throws or declares nothing usable is a SandboxFault or DefinitionError. */
  static async create(source: string, limits: SandboxLimits, emitEnabled: boolean): Promise<JsProcessor> {
    const { sandbox, definition } = await Sandbox.create(source, limits);
    try {
      await sandbox.setEmitEnabled(emitEnabled);
      return new JsProcessor(sandbox, definition, limits);
    } catch (error) {
      sandbox.dispose();
      throw error;
    }
  }

  /** A projection without partitions has its root state from $init before it sees any event. */
  get partitioned(): boolean {
    return this.definition.byStream || this.definition.byCustomPartitions;
  }

  async process(events: readonly SourceEvent[]): Promise<BatchOutput> {
    const output: BatchOutput = { emits: [], changes: [], logs: [] };
    const changes = new Map<string, BatchOutput['changes'][number]>();
    for (let start = 0; start < events.length;) {
      const batch = events.slice(start, start + this.batchEventsMax);
      const startedMs = performance.now();
      const reply = await this.sandbox.process(batchJson(batch));
      this.adapt(batch.length, performance.now() - startedMs);
      for (const [index, streamName, eventType, data, metadata, isJson] of reply.emits) {
        output.emits.push({ sourceIndex: start + index, streamName, eventType, data, metadata, isJson: isJson === 1 });
      }
      for (const [partition, state, result] of reply.changed) changes.set(partition, { partition, state, result });
      if (reply.shared !== undefined) output.shared = reply.shared;
      output.logs.push(...reply.logs);
      start += batch.length;
    }
    output.changes = [...changes.values()];
    return output;
  }

  /** Grows or shrinks the next batches so that one takes about a quarter of the timeout. */
  private adapt(events: number, elapsedMs: number): void {
    const budgetMs = this.limits.executionTimeoutMs * BATCH_TIMEOUT_SHARE;
    const perEventMs = elapsedMs / events;
    const fitting = perEventMs > 0 ? Math.floor(budgetMs / perEventMs) : BATCH_EVENTS_MAX;
    this.batchEventsMax = Math.max(1, Math.min(BATCH_EVENTS_MAX, fitting, this.batchEventsMax * 2));
  }

  async restore(snapshot: ProcessorSnapshot): Promise<void> {
    await this.sandbox.restore(JSON.stringify(snapshot));
    if (!this.partitioned) await this.sandbox.ensureRoot();
  }

  /** The root state from $init (and the shared one), for a projection that has seen no event yet. */
  async initialState(): Promise<string | null> {
    await this.sandbox.ensureRoot();
    return this.sandbox.state('');
  }

  heapBytes(): number {
    return this.sandbox.heapBytes();
  }

  terminate(): void {
    this.sandbox.terminate();
  }

  dispose(): void {
    this.sandbox.dispose();
  }
}
