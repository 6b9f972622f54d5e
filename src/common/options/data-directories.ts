/**
 * --db and --index name directories, created when missing. A path that exists as something else
 * (a regular file, most often a typo) is a bad option value: it is refused here, before the
 * storage engine would fail on it with a bare file-system error.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Errors } from '../errors.js';
import type { NodeOptions } from './schema.js';

/**
 * The index directory when --index is not given: a directory named index next to the db
 * directory. Here rather than in storage/layout.ts because the option loader, a common leaf,
 * applies it.
 */
export function defaultIndexDirectory(db: string): string {
  return join(db, '..', 'index');
}

export function checkDataDirectories(options: Pick<NodeOptions, 'db' | 'index'>): void {
  for (const [option, directory] of [['--db', options.db], ['--index', options.index]] as const) {
    const found = statSync(directory, { throwIfNoEntry: false });
    if (found && !found.isDirectory()) {
      throw Errors.optionInvalid.create(option,
        `${directory} is a file, not a directory; point ${option} at a directory (a missing one is created)`);
    }
  }
}
