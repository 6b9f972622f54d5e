import type { Logger } from '../../common/logger.js';
import type { IndexFile } from './index-file.js';
import { IndexFileWriter } from './index-file-writer.js';
import { mergeStreamEntries, type MemTable } from './memtable.js';

/** Writes a frozen memory table out as a level-0 index file. */
export async function flushMemTable(table: MemTable, directory: string, logger: Logger): Promise<IndexFile> {
  if (!table.isFrozen) throw new TypeError('only a frozen memory table can be flushed');
  const groups = table.sortedGroups();
  const writer = await IndexFileWriter.create({
    directory, level: 0, entryCount: table.entryCount, distinctHashesMax: groups.length, logger,
  });
  try {
    for (const group of groups) {
      const { hashHigh, hashLow } = group[0]!;
      const { eventNumbers, logPositions } = mergeStreamEntries(group);
      for (let index = 0; index < eventNumbers.length; index++) {
        if (writer.add(hashHigh, hashLow, eventNumbers[index]!, logPositions[index]!)) await writer.drain();
      }
    }
    return await writer.finish();
  } catch (error) {
    await writer.abort();
    throw error;
  }
}
