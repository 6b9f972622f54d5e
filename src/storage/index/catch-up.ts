/**
 * The index and the existence filter caught up with the log at start: the index files cover the
 * log up to the index's commit position and the filter up to its checkpoint; what lies between
 * those and the writer is re-added from the log.
 */
import type { Logger } from '../../common/logger.js';
import { peekEventKey } from '../log/record.js';
import type { TransactionLog } from '../log/transaction-log.js';
import type { ExistenceFilter } from './existence-filter.js';
import type { TableIndex } from './table-index.js';

export async function catchUpIndex(log: TransactionLog, index: TableIndex, existence: ExistenceFilter, memTableEntriesMax: number, logger: Logger): Promise<void> {
  const end = log.writerPosition;
  if (index.commitPosition > end) {
    logger.warn({ indexPosition: index.commitPosition, writer: end }, 'the index is ahead of the log; rebuilding it');
    await index.clear();
  }
  if (existence.checkpoint > end) existence.moveCheckpointBack(end);
  const indexFrom = index.commitPosition;
  const filterFrom = Math.max(existence.checkpoint, 0);
  const started = Date.now();
  let added = 0;
  // Committing as it goes lets full memory tables flush during a long rebuild.
  let commitAt = memTableEntriesMax;
  log.scan(Math.min(indexFrom, filterFrom), end, (buffer, offset, position) => {
    const key = peekEventKey(buffer, offset);
    if (!key) return;
    if (position >= indexFrom) {
      if (added >= commitAt) {
        index.commit(position);
        commitAt += memTableEntriesMax;
      }
      index.add(key.streamName, key.eventNumber, position);
      added++;
    }
    if (position >= filterFrom) existence.add(key.streamName);
  });
  index.commit(end);
  existence.commit(end);
  logger.info({ from: indexFrom, to: end, entries: added, ms: Date.now() - started }, 'index caught up with the log');
}
