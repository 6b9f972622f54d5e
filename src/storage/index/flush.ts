import type { Logger } from '../../common/logger.js';
import type { IndexFile } from './index-file.js';
import { IndexFileWriter } from './index-file-writer.js';
import { mergeEntryLists } from './entry-list.js';
import type { MemTable } from './memtable.js';

/** Writes a frozen memory table out as a level-0 index file. */
export async function flushMemTable(table: MemTable, directory: string, logger: Logger): Promise<IndexFile> {
  if (!table.isFrozen) throw new TypeError('only a frozen memory table can be flushed');
  const ids = await table.sortedStreamIds();
  const writer = await IndexFileWriter.create({
    directory, level: 0, entryCount: table.entryCount, distinctHashesMax: ids.length, logger,
  });
  try {
    let index = 0;
    while (index < ids.length) {
      const id = ids[index];
      const high = table.hashHigh(id);
      const low = table.hashLow(id);
      // Streams whose names collide are adjacent; their entries go out as one sorted run.
      let end = index + 1;
      while (end < ids.length && table.hashHigh(ids[end]) === high && table.hashLow(ids[end]) === low) end++;
      if (end === index + 1 && table.hasSingleEntry(id)) {
        if (writer.add(high, low, table.firstEventNumber(id), table.firstLogPosition(id))) await writer.drain();
      } else {
        const group = Array.from(ids.subarray(index, end), (member) => table.entries(member));
        const entries = mergeEntryLists(group);
        for (let entry = 0; entry < entries.length; entry++) {
          if (writer.add(high, low, entries.eventNumber(entry), entries.logPosition(entry))) await writer.drain();
        }
      }
      index = end;
    }
    return await writer.finish();
  } catch (error) {
    await writer.abort();
    throw error;
  }
}
