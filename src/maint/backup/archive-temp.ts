/**
 * The temp file an archive backup writes before it renames it into place:
 * `<FILE>.<pid>.<random>.tmp`, beside FILE. A run killed part way (SIGKILL, a crash) leaves it
 * behind; the next archive backup to the same FILE deletes the ones whose writer is gone. The pid
 * tells a leftover from the file of a backup that is still running: that one is left alone.
 */
import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { type Durability, removeFile } from './file-copy.js';
import { TEMP_SUFFIX } from '../../storage/layout.js';
import { isRunning } from './leftovers.js';

export function archiveTempName(path: string): string {
  return `${path}.${process.pid}.${randomUUID()}${TEMP_SUFFIX}`;
}

/** The pid in a temp name of `path`'s, or undefined when `name` is not one. */
function writerPid(path: string, name: string): number | undefined {
  const prefix = `${basename(path)}.`;
  if (!name.startsWith(prefix) || !name.endsWith(TEMP_SUFFIX)) return undefined;
  const match = /^(\d+)\.[0-9a-f-]{36}$/.exec(name.slice(prefix.length, -TEMP_SUFFIX.length));
  return match ? Number(match[1]) : undefined;
}

/** Deletes the temp files of archive backups of `path` whose process is gone; returns their names. */
export async function removeStaleArchiveTemps(path: string, durability: Durability): Promise<string[]> {
  const directory = dirname(path);
  const removed: string[] = [];
  for (const name of await readdir(directory).catch(() => [] as string[])) {
    const pid = writerPid(path, name);
    if (pid === undefined || pid === process.pid || isRunning(pid)) continue;
    if (await removeFile(join(directory, name), durability)) removed.push(name);
  }
  return removed;
}
