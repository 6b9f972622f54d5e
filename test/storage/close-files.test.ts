// Every file the storage opens is closed again when an open or a close fails partway; a file left
// open is closed by the collector once nothing refers to it, with Node's "Closing file
// descriptor N on garbage collection" warning (DEP0137). Regressions:
// - Engine.close(): with the database directory gone (tap removes a test's directory before its
//   teardown stops a node), writing chaser.chk at close threw and the chunk and checkpoint
//   FileHandles stayed open.
// - TransactionLog.open(): a corrupt chunk left the chunks opened before it open.
// - Chunk.open(): a read that failed after the file was opened left it open.
// - Chunk.create(): a failed fsync of the directory left the new chunk open.
import t, { type Test } from 'tap';
import { closeSync, fstatSync, mkdtempSync, openSync, readlinkSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Chunk } from '../../src/storage/log/chunk.js';
import { chunkFileName } from '../../src/storage/log/chunk-format.js';
import { Engine } from '../../src/storage/engine.js';
import { SMALL, appendUntilChunks, descriptorsUnder, engineOptions, newEvents, openEngine, tempDirectory } from '../helpers/engine.js';
import { nodeFileSystem } from '../../src/storage/disk/file-system.js';
import { installFileSystem, ioError, openWithFaults } from '../helpers/faulty-disk.js';

// The faults below stand for a disk that fails (EIO) where no real file can be made to; they go
// through the storage's file-system seam.

/** Until the returned function is called, a read of `path` fails with EIO. */
function failReadsOf(t: Test, path: string): () => void {
  return installFileSystem(t, {
    readSync: (fd, ...rest) => {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) throw ioError('read');
      return nodeFileSystem.readSync(fd, ...rest);
    },
  });
}

/** Until the returned function is called, the fsync of a directory (FileHandle.sync) fails with EIO. */
function failDirectorySyncs(t: Test): () => void {
  return installFileSystem(t, {
    open: openWithFaults({
      sync: (handle) => (fstatSync(handle.fd).isDirectory() ? Promise.reject(ioError('fsync')) : handle.sync()),
    }),
  });
}

t.test('close with the database directory gone: the error is reported, and every file is closed anyway', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  await engine.append('stream', -1, newEvents(3));
  t.ok(descriptorsUnder(directory).length > 0, 'the engine holds files under its directory');
  rmSync(join(directory, 'db'), { recursive: true, force: true });
  await t.rejects(engine.close(), { code: 'ENOENT' }, 'chaser.chk could not be written');
  t.same(descriptorsUnder(directory), [], 'no file under the directory is open any more');
  t.equal(engine.status().state, 'closed', 'and the engine is closed, not stuck closing');
});

t.test('an open that fails on a corrupt chunk closes the chunks it had opened before it', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  await appendUntilChunks(engine, 'stream', 3);
  await engine.close();
  // Chunk 1's header no longer says which chunk it is: chunk 0 opens, chunk 1 is refused.
  const corrupt = join(directory, 'db', chunkFileName(1, 0));
  const fd = openSync(corrupt, 'r+');
  writeSync(fd, Buffer.alloc(64, 0xee), 0, 64, 0);
  closeSync(fd);
  await t.rejects(Engine.open(engineOptions(directory)), { code: 'SVCDB_ERR_STORAGE_CORRUPT' }, 'the open is refused');
  t.same(descriptorsUnder(directory), [], 'no file under the directory is open');
});

t.test('a chunk whose file cannot be read after it is opened: the open fails and closes it', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  await appendUntilChunks(engine, 'stream', 2);
  await engine.close();
  const restore = failReadsOf(t, join(directory, 'db', chunkFileName(0, 0)));
  await t.rejects(Chunk.open(join(directory, 'db', chunkFileName(0, 0)), SMALL.chunkSizeBytes), { code: 'EIO' }, 'the read error is reported');
  restore();
  t.same(descriptorsUnder(directory), [], 'the chunk file is not left open');
});

t.test('a new chunk whose directory cannot be fsynced: the error is reported and the file is closed', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'svcdb-test-'));
  t.teardown(() => rmSync(directory, { recursive: true, force: true }));
  const restore = failDirectorySyncs(t);
  await t.rejects(Chunk.create(directory, 0, SMALL.chunkSizeBytes), { code: 'SVCDB_ERR_STORAGE_IO' }, 'the fsync failure is reported');
  restore();
  t.same(descriptorsUnder(directory), [], 'the new chunk file is not left open');
});
