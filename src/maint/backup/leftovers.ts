/**
 * What a backup killed part way (SIGKILL, a crash, a full disk) leaves in its destination folder
 * besides the files of the backups: temp files under db/ and index/ (file-copy.ts), a temp file of
 * the manifest, the destination lock it held (storage/disk/lock.ts renames a dead owner's lock to
 * `svcdb.lock.stale` when the next backup takes it) and the lock's prepared file. The next backup
 * into the folder deletes them once it holds the lock, so no other backup is writing there.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { STALE_LOCK_FILE_NAME, isTempFile, preparedLockOwner } from '../../storage/layout.js';
import { type Durability, removeFile } from './file-copy.js';
import { BACKUP_DB_DIRECTORY, BACKUP_INDEX_DIRECTORY, MANIFEST_FILE } from './layout.js';

/** A temp file of the manifest's, from a write cut short. */
export function isManifestTemp(name: string): boolean {
  return name.startsWith(`${MANIFEST_FILE}.`) && isTempFile(name);
}

/** Whether a process with this pid exists (a recycled pid counts: its file is then kept, never lost). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isLeftoverAtTop(name: string): boolean {
  if (name === STALE_LOCK_FILE_NAME || isManifestTemp(name)) return true;
  const preparedBy = preparedLockOwner(name);
  // Another backup may be preparing its lock right now, to be refused; only a dead one's goes.
  return preparedBy !== undefined && preparedBy !== process.pid && !isRunning(preparedBy);
}

/** Deletes the leftovers of interrupted backups in `destination`; returns them, relative to it. */
export async function removeLeftovers(destination: string, durability: Durability): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(destination)) {
    if (isLeftoverAtTop(name) && (await removeFile(join(destination, name), durability))) removed.push(name);
  }
  for (const part of [BACKUP_DB_DIRECTORY, BACKUP_INDEX_DIRECTORY]) {
    const entries = await readdir(join(destination, part), { recursive: true, withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isFile() || !isTempFile(entry.name)) continue;
      const path = join(entry.parentPath, entry.name);
      if (await removeFile(path, durability)) removed.push(path.slice(destination.length + 1));
    }
  }
  return removed;
}
