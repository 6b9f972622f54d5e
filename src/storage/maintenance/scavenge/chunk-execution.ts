/**
 * Chunk execution: every completed chunk file up to the one holding the scavenge point whose
 * weight is above the threshold is rewritten without the records the filter removes (as
 * `chunk-X.(Y+1)`, through the engine's chunk-switch seam); the others are skipped. Up to
 * `threads` files at once. Each file's weight goes to the observer, whose service logs it (the
 * "with weight" lines operators grep for). The checkpoint moves past a file once it and every file before it
 * are done, in the transaction that resets their weights.
 */
import { performance } from 'node:perf_hooks';
import type { ChunkFile } from './access.js';
import type { RunContext } from './context.js';
import { RecordFilter } from './record-filter.js';
import type { ChunkExecutionReport } from './types.js';

/** Files to execute: completed, past the checkpoint, up to the point's chunk. */
function chunksToExecute(context: RunContext): ChunkFile[] {
  return context.access.chunkFiles().filter((file) =>
    file.isCompleted && file.endNumber <= context.pointChunk && file.endNumber > context.checkpoint.doneLogicalChunkNumber);
}

export interface ExecutionTotals {
  spaceSaved: number;
  maxChunkScavenged: number;
}

/** Executes the chunks; false when stopped. */
export async function executeChunks(context: RunContext, totals: ExecutionTotals): Promise<boolean> {
  const files = chunksToExecute(context);
  const filter = new RecordFilter(context.data, context.point);
  const threads = Math.min(Math.max(1, Math.floor(context.options.threads)), 4);
  const done = new Set<number>();
  let next = 0;
  let failure: Error | undefined;
  const worker = async () => {
    while (next < files.length && failure === undefined && !context.shouldStop()) {
      const file = files[next++];
      try {
        const report = await executeChunk(context, file, filter);
        if (report.wasScavenged) {
          totals.spaceSaved += report.spaceSaved;
          totals.maxChunkScavenged = Math.max(totals.maxChunkScavenged, file.endNumber);
          context.reclaimed(report.spaceSaved);
        }
        done.add(files.indexOf(file));
        advanceCheckpoint(context, files, done);
        context.observer.chunkExecuted?.(report);
        context.progress(done.size, 'chunks');
      } catch (error) {
        failure ??= error as Error;
      }
      await context.throttle.rest();
    }
  };
  await Promise.all(Array.from({ length: threads }, worker));
  if (failure !== undefined) throw failure;
  return done.size === files.length;
}

/** Moves the checkpoint past the longest run of done files from the start. */
function advanceCheckpoint(context: RunContext, files: ChunkFile[], done: Set<number>): void {
  let index = -1;
  while (done.has(index + 1)) index++;
  if (index < 0) return;
  const last = files[index];
  if (last.endNumber <= context.checkpoint.doneLogicalChunkNumber) return;
  context.transaction(() => context.saveCheckpoint({ doneLogicalChunkNumber: last.endNumber }));
}

async function executeChunk(context: RunContext, file: ChunkFile, filter: RecordFilter): Promise<ChunkExecutionReport> {
  const { startNumber, endNumber } = file;
  const started = performance.now();
  const weight = context.chunks.weightOf(startNumber, endNumber);
  const threshold = context.point.threshold;
  const base = { chunkStartNumber: startNumber, chunkEndNumber: endNumber, weight };
  if (!(weight > threshold)) {
    return { ...base, timeTakenMs: performance.now() - started, wasScavenged: false, spaceSaved: 0 };
  }
  // Threshold -1 rewrites every chunk, even one the filter leaves whole.
  const result = await context.access.rewriteChunks(startNumber, endNumber, filter.keep, { skipWhenAllKept: threshold >= 0, ...context.throttle.rewriteOptions }, context.hold);
  // Only this run executes chunks, so no weight is added meanwhile: what was weighed is done.
  context.transaction(() => context.chunks.reset(startNumber, endNumber));
  return {
    ...base, timeTakenMs: performance.now() - started, wasScavenged: result.rewritten,
    spaceSaved: result.fileBytesBefore - result.fileBytesAfter,
  };
}
