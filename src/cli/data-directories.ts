/**
 * The --db and --index flags of the offline commands (backup, restore): the same names,
 * variables and defaults as `svcdb serve`, so a command line that serves a node also backs it up.
 */
import { Flags } from '@oclif/core';
import { resolve } from 'node:path';
import { defaultIndexDirectory } from '../common/options/data-directories.js';

export const DB_DEFAULT = './data/db';

export const dataDirectoryFlags = {
  db: Flags.string({
    summary: 'Directory of the transaction log and checkpoints (as for svcdb serve).',
    env: 'SVC_DB',
    default: DB_DEFAULT,
  }),
  index: Flags.string({
    summary: 'Directory of the index files (as for svcdb serve).',
    description: 'Defaults to a directory named index next to the --db directory (<db>/../index).',
    env: 'SVC_INDEX',
  }),
};

/** Absolute paths, with the index directory defaulting to <db>/../index as svcdb serve does. */
export function dataDirectories(flags: { db: string; index?: string }, cwd: string): { db: string; index: string } {
  const db = resolve(cwd, flags.db);
  return { db, index: flags.index === undefined ? defaultIndexDirectory(db) : resolve(cwd, flags.index) };
}
