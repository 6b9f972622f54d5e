/**
 * Recovery of a whole engine at start: the log's own (log/recovery.ts), then the index and the
 * existence filter opened and caught up with it. What it returns is consistent and ready for the
 * engine; anything opened is closed again if a step fails.
 */
import { join } from 'node:path';
import type { Logger } from '../common/logger.js';
import type { ResolvedEngineOptions } from './engine-options.js';
import { catchUpIndex } from './index/catch-up.js';
import { StreamExistenceFilter, disabledExistenceFilter, type ExistenceFilter } from './index/existence-filter.js';
import { TableIndex } from './index/table-index.js';
import { EXISTENCE_DIRECTORY } from './layout.js';
import { recoverLog, type Checkpoints } from './log/recovery.js';
import type { TransactionLog } from './log/transaction-log.js';

export interface Recovered {
  checkpoints: Checkpoints;
  log: TransactionLog;
  index: TableIndex;
  existence: ExistenceFilter;
  /** Closes everything above, newest first. */
  close(): Promise<void>;
}

export async function recover(options: ResolvedEngineOptions, logger: Logger): Promise<Recovered> {
  // What is open so far, closed again (newest first) if the start fails half way.
  const opened: Array<{ close(): unknown }> = [];
  const close = async () => {
    for (const resource of opened.reverse()) await Promise.resolve(resource.close()).catch(() => undefined);
  };
  try {
    const recoveredLog = await recoverLog(options, logger);
    opened.push(recoveredLog);
    const { checkpoints, log } = recoveredLog;
    const index = await TableIndex.open({
      directory: options.indexPath, memTableEntriesMax: options.memTableEntriesMax, hasher: options.streamHasher,
      // Children of the process logger, not of the storage one: a second `component` binding
      // would put the key twice on every line.
      logger: options.logger.child({ component: 'index' }),
    });
    opened.push(index);
    const existence = options.existenceFilterSizeBytes === 0 ? disabledExistenceFilter : await StreamExistenceFilter.open({
      directory: join(options.indexPath, EXISTENCE_DIRECTORY), sizeBytes: options.existenceFilterSizeBytes,
      hasher: options.streamHasher, logger: options.logger.child({ component: 'existence-filter' }),
    });
    opened.push(existence);
    await catchUpIndex(log, index, existence, options.memTableEntriesMax, logger);
    return { checkpoints, log, index, existence, close };
  } catch (error) {
    await close();
    throw error;
  }
}
