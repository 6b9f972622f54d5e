import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Errors } from '../../common/errors.js';
import { storageError } from './file-write.js';
import { PRIVATE_FILE_MODE } from './file-modes.js';
import { LOCK_FILE_NAME, STALE_LOCK_FILE_NAME, preparedLockFileName } from '../layout.js';
import { fileSystem } from './file-system.js';

/**
 * The database lock: `svcdb.lock` in the db directory, holding the owner's pid and its start
 * time. Taking it is atomic (link(2) of a prepared file fails if the lock exists). A lock left
 * by a process that is gone, as after a SIGKILL, is taken over; the start time guards against
 * a recycled pid making a dead owner look alive.
 */

interface LockOwner {
  pid: number;
  startTime: string;
}

function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime); fields after the parenthesised command name are space separated.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function isAlive(owner: LockOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const startTime = processStartTime(owner.pid);
  return startTime === undefined || owner.startTime === '' || startTime === owner.startTime;
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const [pid, startTime = ''] = readFileSync(path, 'utf8').trim().split('\n');
    return { pid: Number(pid), startTime };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Reads the pid of the lock's owner if a live process holds it (for maintenance commands). */
export function lockOwnerPid(dbPath: string): number | undefined {
  const owner = readOwner(join(dbPath, LOCK_FILE_NAME));
  return owner && isAlive(owner) ? owner.pid : undefined;
}

export class DatabaseLock {
  private constructor(private readonly path: string) {}

  static acquire(dbPath: string): DatabaseLock {
    const path = join(dbPath, LOCK_FILE_NAME);
    const prepared = join(dbPath, preparedLockFileName(process.pid));
    try {
      // writeFileSync writes every byte or throws; a full disk is then the coded disk-full error.
      fileSystem.writeFileSync(prepared, `${process.pid}\n${processStartTime(process.pid) ?? ''}\n`, { mode: PRIVATE_FILE_MODE });
    } catch (error) {
      throw storageError(prepared, 'write', error);
    }
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        try {
          fileSystem.linkSync(prepared, path);
          return new DatabaseLock(path);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        const owner = readOwner(path);
        // Our own pid with our start time is this process: opening a database twice is refused too.
        if (owner && isAlive(owner)) {
          throw Errors.storageLocked.create(dbPath, String(owner.pid));
        }
        // The owner is gone: move its stale lock aside. If another starter raced us here, one
        // rename wins and the loser sees the winner's live lock on the next attempt.
        try {
          fileSystem.renameSync(path, join(dbPath, STALE_LOCK_FILE_NAME));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }
      throw Errors.storageLocked.create(dbPath, 'unknown (the lock keeps changing hands)');
    } finally {
      fileSystem.unlinkSync(prepared);
    }
  }

  release(): void {
    try {
      fileSystem.unlinkSync(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}
