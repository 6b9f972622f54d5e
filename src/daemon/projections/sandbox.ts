/**
 * One projection's JavaScript, in its own V8 isolate (isolated-vm): its own heap with a limit,
 * no Node modules, no `process`, no file system, network or timers, and every call into it
 * bounded by a timeout. Only strings cross between the node and the isolate.
 *
 * A fault (a throw, a timeout, the heap limit) is reported as a SandboxFault; the isolate of a
 * projection that faulted is disposed, and the node goes on.
 */
import ivm from 'isolated-vm';
import { SANDBOX_PRELUDE } from './sandbox-prelude.js';
import { parseDefinition, type QueryDefinition } from './definition.js';

export interface SandboxLimits {
  /** Heap of the isolate; past it the isolate is disposed and the projection faults. */
  memoryLimitMb: number;
  /** Longest one call into the isolate may run. */
  executionTimeoutMs: number;
}

/** What projection code did wrong, in a sentence for the projection's stateReason. */
export class SandboxFault extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxFault';
  }
}

/** A call cut off because the projection is being stopped: not a fault of its code. */
export class SandboxTerminated extends SandboxFault {
  constructor() {
    super('the projection was stopped while its handlers ran; the events they had not finished are handled again at its next start');
    this.name = 'SandboxTerminated';
  }
}

/** One emitted event as the runtime reports it: [event index in batch, stream, type, data, metadata, isJson]. */
export type RawEmit = [number, string, string, string, string, 0 | 1];

/** Per partition whose state a batch touched: [partition, state JSON, result JSON or null]. */
export type ChangedPartition = [string, string | null, string | null];

export interface BatchReply {
  emits: RawEmit[];
  logs: string[];
  changed: ChangedPartition[];
  shared?: string | null;
}

const ENTRY_POINTS = ['__describe', '__setEmitEnabled', '__process', '__state', '__snapshot', '__restore', '__ensureRoot'] as const;
type EntryPoint = (typeof ENTRY_POINTS)[number];

export class Sandbox {
  private readonly entries = new Map<EntryPoint, ivm.Reference>();
  /** Calls into the isolate not settled yet: handles are released only once none is left. */
  private inFlight = 0;
  private disposing = false;
  private terminated = false;

  private constructor(private readonly isolate: ivm.Isolate, private readonly context: ivm.Context, private readonly limits: SandboxLimits) {}

  /** Compiles the runtime and `source`, runs the source once, and reads the definition it declared. */
  static async create(source: string, limits: SandboxLimits): Promise<{ sandbox: Sandbox; definition: QueryDefinition }> {
    const isolate = new ivm.Isolate({ memoryLimit: limits.memoryLimitMb });
    try {
      const context = await isolate.createContext();
      const sandbox = new Sandbox(isolate, context, limits);
      await sandbox.guard(async () => {
        await (await isolate.compileScript(SANDBOX_PRELUDE, { filename: 'projection-runtime.js' })).run(context, { timeout: limits.executionTimeoutMs });
        const script = await isolate.compileScript(source, { filename: 'projection.js' });
        await script.run(context, { timeout: limits.executionTimeoutMs });
      });
      for (const name of ENTRY_POINTS) sandbox.entries.set(name, await context.global.get(name, { reference: true }));
      const definition = parseDefinition(await sandbox.call('__describe'));
      return { sandbox, definition };
    } catch (error) {
      if (!isolate.isDisposed) isolate.dispose();
      throw error;
    }
  }

  setEmitEnabled(enabled: boolean): Promise<void> {
    return this.call('__setEmitEnabled', enabled).then(() => undefined);
  }

  /** Runs the handlers over a batch (JSON of event arrays, see event-batch.ts). */
  async process(batchJson: string): Promise<BatchReply> {
    return parseReply(await this.call('__process', batchJson));
  }

  /** The state of one partition as JSON, or null when the partition was never seen. */
  async state(partition: string): Promise<string | null> {
    const state = await this.call('__state', partition);
    return typeof state === 'string' ? state : null;
  }

  async snapshot(): Promise<string> {
    return String(await this.call('__snapshot'));
  }

  async restore(snapshotJson: string): Promise<void> {
    await this.call('__restore', snapshotJson);
  }

  /** A projection with no partitions has its root state from `$init` before any event. */
  async ensureRoot(): Promise<void> {
    await this.call('__ensureRoot');
  }

  /** Heap in use by the isolate, for statistics. */
  heapBytes(): number {
    if (this.isolate.isDisposed) return 0;
    const heap = this.isolate.getHeapStatisticsSync();
    return heap.used_heap_size + heap.externally_allocated_size;
  }

  /**
   * Releases the isolate. A call still running in it (a page being processed while the projection
   * faults, is reset or the node stops) keeps it until that call settles: isolated-vm aborts the
   * whole process when handles are released under a call in progress.
   */
  dispose(): void {
    this.disposing = true;
    if (this.inFlight === 0) this.release();
  }

  /**
   * Tears the isolate down at once, ending a call under way in it (whatever the timeout): a stop
   * must not wait for a handler. Disposing the isolate itself is safe under a call; the handles
   * into it are left for release() once that call has settled.
   */
  terminate(): void {
    this.terminated = true;
    this.disposing = true;
    if (!this.isolate.isDisposed) this.isolate.dispose();
    if (this.inFlight === 0) this.release();
  }

  private release(): void {
    // An isolate past its memory limit was disposed by isolated-vm, with every handle into it.
    if (!this.isolate.isDisposed) {
      for (const reference of this.entries.values()) reference.release();
      this.context.release();
      this.isolate.dispose();
    }
    this.entries.clear();
  }

  private async call(name: EntryPoint, ...args: Array<string | boolean>): Promise<unknown> {
    const reference = this.entries.get(name);
    if (this.terminated) throw new SandboxTerminated();
    if (!reference || this.disposing || this.isolate.isDisposed) throw new SandboxFault('the projection\'s isolate was disposed after an earlier fault');
    this.inFlight += 1;
    try {
      return await this.guard(() => reference.apply(undefined, args, { timeout: this.limits.executionTimeoutMs }));
    } finally {
      this.inFlight -= 1;
      if (this.disposing && this.inFlight === 0) this.release();
    }
  }

  /** Turns whatever the isolate throws into a SandboxFault with a message an operator can act on. */
  private async guard<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (this.terminated) throw new SandboxTerminated();
      throw new SandboxFault(this.describeFault(error));
    }
  }

  private describeFault(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    // An ArrayBuffer past the limit is refused inside the isolate, as a RangeError the code may throw on.
    if (this.isolate.isDisposed || /memory limit|array buffer allocation failed/i.test(message)) {
      return `the projection used more than its memory limit of ${this.limits.memoryLimitMb} MB (--projection-memory-limit-mb)`;
    }
    if (/timed out/i.test(message)) {
      return `a handler ran longer than the execution timeout of ${this.limits.executionTimeoutMs} ms (--projection-execution-timeout)`;
    }
    return message;
  }
}

function parseReply(reply: unknown): BatchReply {
  if (typeof reply !== 'string') throw new SandboxFault('the projection runtime returned no reply; was the runtime tampered with?');
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply);
  } catch {
    throw new SandboxFault('the projection runtime returned an unreadable reply; was JSON replaced by the projection?');
  }
  const { emits, logs, changed } = (parsed ?? {}) as Partial<BatchReply>;
  if (!Array.isArray(emits) || !Array.isArray(logs) || !Array.isArray(changed)) {
    throw new SandboxFault('the projection runtime returned a malformed reply; was the runtime tampered with?');
  }
  for (const emit of emits) checkEmit(emit);
  return parsed as BatchReply;
}

function checkEmit(emit: unknown): void {
  const valid = Array.isArray(emit) && emit.length === 6 && typeof emit[0] === 'number' && typeof emit[1] === 'string' &&
    typeof emit[2] === 'string' && typeof emit[3] === 'string' && typeof emit[4] === 'string';
  if (!valid) throw new SandboxFault('the projection runtime returned a malformed emitted event');
}
