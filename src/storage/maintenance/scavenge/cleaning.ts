/**
 * Cleaning: once no chunk up to the point carries weight (every removable record is gone), the
 * data of metadata streams and of spent streams (nothing left for their metadata to remove) is
 * deleted; accumulation brings it back if they get new metadata.
 */
import type { RunContext } from './context.js';
import { StreamStatus } from './stream-data.js';

export function clean(context: RunContext): void {
  if (context.chunks.weightUpTo(context.pointChunk) > 0) return;
  context.transaction(() => {
    for (const table of ['MetastreamDatas', 'MetastreamDataCollisions']) context.db.prepare(`DELETE FROM ${table} WHERE isTombstoned = 0`).run();
    for (const table of ['OriginalStreamDatas', 'OriginalStreamDataCollisions']) {
      context.db.prepare(`DELETE FROM ${table} WHERE status = ?`).run(StreamStatus.spent);
    }
  });
}
