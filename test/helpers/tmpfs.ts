import type { Test } from 'tap';
import { execaSync } from 'execa';
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real small file system for full-disk tests: a tmpfs of `sizeBytes` mounted on a new directory,
 * unmounted when the test ends. Mounting needs root, as CI runs.
 */
export function mountTmpfs(t: Test, sizeBytes: number): string {
  const directory = mkdtempSync(join(tmpdir(), 'svcdb-tmpfs-'));
  execaSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', directory]);
  t.teardown(() => {
    execaSync('umount', ['-l', directory]);
    rmSync(directory, { recursive: true, force: true });
  });
  return directory;
}

/** Bytes free on the file system holding `path`. */
export function freeBytes(path: string): number {
  const { bavail, bsize } = statfsSync(path);
  return bavail * bsize;
}
