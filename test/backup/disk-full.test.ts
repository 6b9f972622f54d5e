// Every write of a backup takes a short count for what it is and a full disk for a coded error:
// the files the backup opens come through the storage's file-system seam with a write that writes
// at most half of what it is asked, and then fails with ENOSPC as a full disk does. The backup fails with SVCDB_ERR_BACKUP_DISK_FULL (exit 5, a message that says to free
// space), and the folder or archive still holds the backup it held before, which verifies.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { Errors } from '../../src/common/errors.js';
import { CheckpointName } from '../../src/storage/layout.js';
import { backup } from '../../src/maint/backup/backup.js';
import { restore } from '../../src/maint/backup/restore.js';
import { verifyBackup } from '../../src/maint/backup/verify.js';
import { readStream } from '../helpers/backup.js';
import { newEvents, openEngine, tempDirectory } from '../helpers/engine.js';
import { installFileSystem, openWithFaults } from '../helpers/faulty-disk.js';

interface Faults {
  shortWrites: number;
  diskFull: number;
  /** Puts the real write back (teardown does it too). */
  undo(): void;
}

/**
 * Makes every FileHandle write of a file opened from now on stop short (half of what it is asked,
 * at least one byte), and once `budgetBytes` were written by such handles, fail with ENOSPC.
 */
function patchWrites(t: Test, budgetBytes = Number.POSITIVE_INFINITY): Faults {
  let written = 0;
  const take = (length: number): number => {
    if (written >= budgetBytes) {
      faults.diskFull++;
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
    }
    const granted = Math.max(1, Math.min(Math.ceil(length / 2), budgetBytes - written));
    if (granted < length) faults.shortWrites++;
    written += granted;
    return granted;
  };
  const undo = installFileSystem(t, {
    open: openWithFaults({
      write: async (handle, buffer, offset = 0, length = buffer.length - offset, position = null) => handle.write(buffer, offset, take(length), position),
      writev: async (handle, buffers, position = null) => {
        const joined = Buffer.concat(buffers);
        const { bytesWritten } = await handle.write(joined, 0, take(joined.length), position);
        return { bytesWritten, buffers };
      },
    }),
  });
  const faults: Faults = { shortWrites: 0, diskFull: 0, undo };
  return faults;
}

/** A stopped node with a full backup in `backup`, and more events written since. */
async function nodeWithBackup(directory: string, destination: { destination?: string; archive?: string }) {
  const source = { db: join(directory, 'db'), index: join(directory, 'index') };
  let engine = await openEngine(directory);
  while (engine.status().chunkCount < 2) await engine.append('before', -2, newEvents(20));
  await engine.close();
  const first = await backup({ ...source, ...destination, differential: false });
  engine = await openEngine(directory);
  for (let round = 0; round < 10; round++) await engine.append('after', -2, newEvents(20));
  await engine.close();
  return { source, first };
}

function tempFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.tmp'));
}

t.test('a full disk fails a differential backup with a coded error and leaves the previous backup restorable', async (t) => {
  const directory = tempDirectory(t);
  const folder = join(directory, 'backup');
  const { source, first } = await nodeWithBackup(directory, { destination: folder });

  const faults = patchWrites(t, 8 * 1024);
  const error = await backup({ ...source, destination: folder, differential: true }).then(() => undefined, (caught: unknown) => caught);
  t.match(error, { code: Errors.backupDiskFull.code }, 'the backup fails with SVCDB_ERR_BACKUP_DISK_FULL');
  t.match((error as Error).message, /Free space or raise the quota/, 'its message says to free space');
  t.equal(exitCodeFor(Errors.backupDiskFull.code), 5, 'which exits 5');
  t.ok(faults.shortWrites > 0, `writes stopped short (${faults.shortWrites}) before the disk was full`);
  t.ok(faults.diskFull > 0, 'and then failed with ENOSPC');
  faults.undo();
  await t.test('the folder still holds the previous backup', async (t) => {
    t.same(tempFiles(folder), [], 'no partly written file is left');
    const verified = await verifyBackup({ source: folder });
    t.equal(verified.holds, 'previous-backup', 'verify passes it and says it holds the previous backup');
    t.equal(verified.restoreEndsAt, first.checkpoints[CheckpointName.chaser], 'a restore keeps the log up to the previous backup\'s chaser.chk');
  });
});

t.test('short writes alone are completed: the backup and the archive hold every byte', async (t) => {
  const directory = tempDirectory(t);
  const folder = join(directory, 'backup');
  const archive = join(directory, 'backup.tar.gz');
  const { source } = await nodeWithBackup(directory, { destination: folder });
  const faults = patchWrites(t);
  const result = await backup({ ...source, destination: folder, differential: true });
  await backup({ ...source, archive, differential: false });
  t.ok(faults.shortWrites > 0, `${faults.shortWrites} writes stopped short`);
  faults.undo();
  for (const path of [folder, archive]) t.equal((await verifyBackup({ source: path })).holds, 'last-backup', `${path} verifies`);
  const target = join(directory, 'restored');
  await restore({ source: folder, db: join(target, 'db'), index: join(target, 'index'), force: false });
  const engine = await openEngine(target);
  t.equal(readStream(engine, 'after').length, 200, 'the restored node holds every event written before the differential backup');
  t.equal(result.generation, 2, 'the differential backup completed');
  await engine.close();
});

t.test('a full disk fails an archive backup and leaves the previous archive in place', async (t) => {
  const directory = tempDirectory(t);
  const archive = join(directory, 'node.tar.gz');
  const { source, first } = await nodeWithBackup(directory, { archive });
  const faults = patchWrites(t, 16 * 1024);
  await t.rejects(backup({ ...source, archive, differential: false }), { code: Errors.backupDiskFull.code }, 'the archive backup fails with SVCDB_ERR_BACKUP_DISK_FULL');
  t.ok(faults.diskFull > 0, 'after a write failed with ENOSPC');
  faults.undo();
  t.same(tempFiles(directory).filter((name) => name.startsWith('node.tar.gz')), [], 'its temp file is deleted');
  const verified = await verifyBackup({ source: archive });
  t.equal(verified.restoreEndsAt, first.checkpoints[CheckpointName.chaser], 'the previous archive is in place and verifies');
});
