// `svcdb serve` on a database whose completed chunk was damaged after it was written: the
// start-time checks pass (the index covers the damaged records, so they are not read), the
// background hash check finds the damage, and the node exits 4 with SVCDB_ERR_STORAGE_CHUNK_HASH,
// as a start that finds the same damage does. It used to exit 1 with the "closed" error that the
// next call to the stopped engine met.
import { join } from 'node:path';
import t from 'tap';
import { Errors } from '../src/common/errors.js';
import { CHUNK_HEADER_BYTES } from '../src/storage/log/chunk-format.js';
import { CliProcess } from './helpers/cli.js';
import { SMALL, flipByteInFirstChunk, newEvents, openEngine, tempDirectory } from './helpers/engine.js';

async function databaseWithDamagedChunk(directory: string): Promise<string> {
  const engine = await openEngine(directory);
  while (engine.status().chunkCount < 3) await engine.append('bytes', -2, newEvents(10));
  await engine.settleIndex();
  await engine.close();
  return flipByteInFirstChunk(directory, CHUNK_HEADER_BYTES + 5000);
}

t.test('a chunk hash mismatch found in the background makes serve exit 4 with its code', async (t) => {
  const directory = tempDirectory(t);
  const path = await databaseWithDamagedChunk(directory);
  const serve = new CliProcess([
    'serve', '--db', join(directory, 'db'), '--index', join(directory, 'index'), '--http-port', '0',
    // The sizes the database was made with, so nothing is rebuilt from the log at start.
    '--chunk-size', String(SMALL.chunkSizeBytes), '--max-mem-table-size', String(SMALL.memTableEntriesMax),
    '--stream-existence-filter-size', String(SMALL.existenceFilterSizeBytes), '--verify-chunks', 'background',
  ]);
  t.teardown(() => serve.stop('SIGKILL'));
  const exit = await serve.exited;
  t.ok(serve.logLines.some((line) => line.msg === 'database opened'), 'the start-time checks passed and the database opened');
  t.equal(exit.code, 4, `exit code 4 (corrupt storage); stderr: ${exit.stderr}`);
  const exiting = serve.logLines.find((line) => line.msg === 'exiting with an error');
  t.equal(exiting?.code, Errors.storageChunkHash.code, 'the "exiting with an error" line carries the chunk hash code');
  t.match(String(exiting?.reason), path, 'and names the damaged chunk');
  t.match(exit.stderr, Errors.storageChunkHash.code, 'stderr names the code for the operator');
});
