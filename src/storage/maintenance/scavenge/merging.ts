/**
 * Chunk merging: neighbouring completed chunk files up to the point's chunk whose records
 * together fit in one chunk are rewritten as one file, pass after pass until none merge. Not
 * checkpointed inside the stage: a merge already done is not done again, so a resumed stage
 * simply starts over.
 */
import { performance } from 'node:perf_hooks';
import type { ChunkFile } from './access.js';
import type { RunContext } from './context.js';

/** The first run of at least two neighbouring files whose data fits in one chunk. */
function nextGroup(context: RunContext): ChunkFile[] | undefined {
  const files = context.access.chunkFiles().filter((file) => file.isCompleted && file.endNumber <= context.pointChunk);
  const limit = context.access.chunkSizeBytes;
  for (let first = 0; first < files.length; first++) {
    let bytes = files[first].dataBytes;
    let last = first;
    while (last + 1 < files.length && bytes + files[last + 1].dataBytes <= limit) bytes += files[++last].dataBytes;
    if (last > first) return files.slice(first, last + 1);
  }
  return undefined;
}

/** Merges until nothing merges; false when stopped. */
export async function mergeChunks(context: RunContext): Promise<{ completed: boolean; spaceSaved: number }> {
  let spaceSaved = 0;
  let merges = 0;
  for (;;) {
    if (context.shouldStop()) return { completed: false, spaceSaved };
    const group = nextGroup(context);
    if (group === undefined) return { completed: true, spaceSaved };
    const startNumber = group[0].startNumber;
    const endNumber = group[group.length - 1].endNumber;
    const started = performance.now();
    const result = await context.access.rewriteChunks(startNumber, endNumber, () => true, context.throttle.rewriteOptions, context.hold);
    const saved = result.fileBytesBefore - result.fileBytesAfter;
    spaceSaved += saved;
    context.reclaimed(saved);
    context.logger.info({ chunkStartNumber: startNumber, chunkEndNumber: endNumber, files: group.length }, 'merged scavenged chunks');
    context.observer.chunksMerged?.({
      chunkStartNumber: startNumber, chunkEndNumber: endNumber, timeTakenMs: performance.now() - started, wasMerged: true, spaceSaved: saved,
    });
    context.progress(++merges, 'merges');
    await context.throttle.rest();
  }
}
