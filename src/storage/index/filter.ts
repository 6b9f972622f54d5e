import type { Logger } from '../../common/logger.js';
import type { IndexFile } from './index-file.js';
import { IndexFileWriter } from './index-file-writer.js';
import { EntryCursor } from './merge.js';

/** Decides per entry, by its log position, whether an index entry stays. */
export type KeepEntry = (logPosition: number) => boolean;

/** Visits every entry of `file` in order, a buffer at a time. */
async function eachEntry(file: IndexFile, visit: (cursor: EntryCursor) => Promise<void> | void): Promise<void> {
  const cursor = await EntryCursor.open(file);
  try {
    await cursor.refill();
    while (!cursor.done) {
      await visit(cursor);
      if (!cursor.advance()) await cursor.refill();
    }
  } finally {
    await cursor.close();
  }
}

export interface FilteredFile {
  /** The new file; undefined when every entry stays (keep the file) or none does (drop it). */
  file: IndexFile | undefined;
  entriesKept: number;
  entriesDeleted: number;
}

/**
 * Writes a new index file at the same level holding the entries of `file` that `keep` accepts
 * (what a scavenge does to every index file). The entries are counted first, since a file
 * announces its entry count; a file that loses nothing is not rewritten.
 */
export async function filterIndexFile(file: IndexFile, keep: KeepEntry, directory: string, logger: Logger): Promise<FilteredFile> {
  let kept = 0;
  await eachEntry(file, (cursor) => {
    if (keep(cursor.logPosition)) kept++;
  });
  const entriesDeleted = file.entryCount - kept;
  if (entriesDeleted === 0 || kept === 0) return { file: undefined, entriesKept: kept, entriesDeleted };
  const writer = await IndexFileWriter.create({
    directory, level: file.level, entryCount: kept, distinctHashesMax: file.distinctHashes, logger,
  });
  try {
    await eachEntry(file, async (cursor) => {
      if (!keep(cursor.logPosition)) return;
      if (writer.add(cursor.high, cursor.low, cursor.eventNumber, cursor.logPosition)) await writer.drain();
    });
    return { file: await writer.finish(), entriesKept: kept, entriesDeleted };
  } catch (error) {
    await writer.abort();
    throw error;
  }
}
