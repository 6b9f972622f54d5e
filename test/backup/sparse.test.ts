// Backups and restores keep holes: a node's preallocated active chunk and its existence filter
// are mostly holes, and a copy that writes them out as zeroes turns a few hundred kilobytes of
// node into hundreds of megabytes of backup. What `du` shows is compared, not the apparent sizes.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { dataArgs, readAll, runJson } from '../helpers/backup.js';
import { newEvents, openEngine, tempDirectory } from '../helpers/engine.js';

/** A node's sizes as `svcdb serve` has them by default, but for a smaller chunk. */
const NODE_SIZES = { chunkSizeBytes: 64 * 1024 * 1024, existenceFilterSizeBytes: 64 * 1024 * 1024 };
/** Room for what a copy adds besides the data: the manifest, block rounding, file-system metadata. */
const SLACK_BYTES = 1024 * 1024;

interface Usage {
  /** What `ls -l` adds up. */
  apparentBytes: number;
  /** What `du` adds up: the blocks the files hold. */
  allocatedBytes: number;
}

function usageOf(directory: string): Usage {
  const usage: Usage = { apparentBytes: 0, allocatedBytes: 0 };
  for (const entry of readdirSync(directory, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const stats = statSync(join(entry.parentPath, entry.name));
    usage.apparentBytes += stats.size;
    usage.allocatedBytes += stats.blocks * 512;
  }
  return usage;
}

t.test('a full backup, an archive and their restores take the blocks the node takes, not its apparent size', async (t) => {
  const directory = tempDirectory(t);
  const source = join(directory, 'source');
  const engine = await openEngine(source, NODE_SIZES);
  for (let i = 0; i < 10; i += 1) await engine.append(`sparse-${i}`, -1, newEvents(5));
  const written = readAll(engine).length;
  await engine.close();
  const node = usageOf(source);
  t.ok(node.apparentBytes > 10 * node.allocatedBytes, `the node is mostly holes: ${node.apparentBytes} bytes long, ${node.allocatedBytes} on disk`);

  const backup = join(directory, 'backup');
  const run = await runJson(['backup', backup, ...dataArgs(source)]);
  t.equal(run.code, 0, `backup exits 0 ${run.exit.stderr}`);
  const copy = usageOf(backup);
  t.ok(copy.allocatedBytes <= node.allocatedBytes + SLACK_BYTES, `the backup holds ${copy.allocatedBytes} bytes on disk for the node's ${node.allocatedBytes}`);
  t.ok(copy.apparentBytes >= node.apparentBytes - SLACK_BYTES, 'the copies keep their full lengths');

  const restored = join(directory, 'restored');
  const restore = await runJson(['restore', backup, ...dataArgs(restored)]);
  t.equal(restore.code, 0, `restore exits 0 ${restore.exit.stderr}`);
  const back = usageOf(restored);
  t.ok(back.allocatedBytes <= node.allocatedBytes + SLACK_BYTES, `the restore holds ${back.allocatedBytes} bytes on disk for the node's ${node.allocatedBytes}`);
  const reopened = await openEngine(restored, NODE_SIZES);
  t.teardown(() => reopened.close());
  t.equal(readAll(reopened).length, written, 'the restored node reads every event');

  const archive = join(directory, 'node.tar.gz');
  const archived = await runJson(['backup', '--archive', archive, ...dataArgs(source)]);
  t.equal(archived.code, 0, `backup --archive exits 0 ${archived.exit.stderr}`);
  t.ok(statSync(archive).size <= node.allocatedBytes + SLACK_BYTES, `the archive is ${statSync(archive).size} bytes`);
  const fromArchive = join(directory, 'from-archive');
  const unpacked = await runJson(['restore', archive, ...dataArgs(fromArchive)]);
  t.equal(unpacked.code, 0, `restore of the archive exits 0 ${unpacked.exit.stderr}`);
  const unpackedUsage = usageOf(fromArchive);
  t.ok(unpackedUsage.allocatedBytes <= node.allocatedBytes + SLACK_BYTES, `the restore of the archive holds ${unpackedUsage.allocatedBytes} bytes on disk`);
});
