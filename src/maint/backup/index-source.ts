/**
 * The index directory of a live node, as backup reads it. The node replaces `indexmap` atomically
 * and deletes an index file only after a map without it is durable (storage/index/indexmap.ts).
 * So if the map reads the same before and after its files were copied, every file it lists was
 * there all along and the copy is a consistent index.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Errors } from '../../common/errors.js';
import { parseIndexMap, type IndexMap } from '../../storage/index/indexmap.js';
import { INDEXMAP_FILE, isIndexDataFile } from '../../storage/layout.js';

/** Attempts to read indexmap while it does not exist, and the pause between them. */
const INDEXMAP_READ_ATTEMPTS = 50;
const INDEXMAP_RETRY_MS = 20;
/** Rounds of "copy the map, copy its files, compare" before the backup gives up. */
export const INDEX_ROUNDS_MAX = 20;

/** The bytes of `<directory>/indexmap`, or undefined if there is none. */
export async function readIndexMapBytes(directory: string): Promise<Buffer | undefined> {
  try {
    return await readFile(join(directory, INDEXMAP_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The reference's "copy indexmap, repeating until the source file exists": a map that is being
 * replaced may be missing for a moment. A directory that still has none after the retries has no
 * index yet.
 */
export async function readSourceIndexMap(index: string): Promise<Buffer | undefined> {
  for (let attempt = 1; ; attempt++) {
    const bytes = await readIndexMapBytes(index);
    if (bytes !== undefined || attempt >= INDEXMAP_READ_ATTEMPTS) return bytes;
    await new Promise((resolve) => setTimeout(resolve, INDEXMAP_RETRY_MS));
  }
}

/** Parses map bytes with the storage module (checksum and all). */
export function parseIndexMapBytes(bytes: Buffer, path: string): IndexMap {
  return parseIndexMap(bytes.toString('latin1'), path);
}

/** The reference's indexFiles: every `<GUID>` and `<GUID>.bloomfilter` in the directory. */
export async function listIndexDataFiles(directory: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return entries.filter((entry) => entry.isFile() && isIndexDataFile(entry.name)).map((entry) => entry.name).sort();
}

/** Whether the directory holds any file at its top level (the differential index part's step 1). */
export async function holdsFiles(directory: string): Promise<boolean> {
  const entries = await readdir(directory, { withFileTypes: true });
  return entries.some((entry) => entry.isFile());
}

export function indexKeptChanging(): Error {
  return Errors.backupSourceChanged.create(`the index changed ${INDEX_ROUNDS_MAX} times while its files were copied (index merges under heavy load)`);
}
