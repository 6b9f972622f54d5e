/**
 * --db and --index name directories, created when missing. A path that exists as something else
 * (a regular file, most often a typo) is a bad option value: it is refused here, before the
 * storage engine would fail on it with a bare file-system error.
 */
import { statSync } from 'node:fs';
import { Errors } from '../errors.js';
import type { NodeOptions } from './schema.js';

export function checkDataDirectories(options: Pick<NodeOptions, 'db' | 'index'>): void {
  for (const [option, directory] of [['--db', options.db], ['--index', options.index]] as const) {
    const found = statSync(directory, { throwIfNoEntry: false });
    if (found && !found.isDirectory()) {
      throw Errors.optionInvalid.create(option,
        `${directory} is a file, not a directory; point ${option} at a directory (a missing one is created)`);
    }
  }
}
