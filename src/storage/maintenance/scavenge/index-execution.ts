/**
 * Index execution: every index file is rewritten without the entries whose records the chunk
 * execution removed (an entry at or after the point always stays). Whether a record is gone is
 * read from the chunks' position maps, so colliding streams need no special care here.
 */
import type { RunContext } from './context.js';

/** Scavenges the index files; false when stopped. */
export async function executeIndex(context: RunContext): Promise<{ completed: boolean; spaceSaved: number }> {
  const { access, point } = context;
  let spaceSaved = 0;
  let files = 0;
  const keep = (position: number) => position >= point.position || access.isKept(position);
  const completed = await access.scavengeIndex(keep, (report) => {
    spaceSaved += report.spaceSaved;
    context.reclaimed(report.spaceSaved);
    context.observer.indexExecuted?.(report);
    context.progress(++files, 'indexFiles');
  }, () => context.shouldStop());
  return { completed, spaceSaved };
}
