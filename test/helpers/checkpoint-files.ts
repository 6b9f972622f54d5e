/**
 * A node's checkpoint files read and written from outside it, as a test sets up what a crash or
 * a restore leaves: `dbPath` is the database directory, the node stopped.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointName } from '../../src/storage/layout.js';
import { readInt64, writeInt64 } from '../../src/storage/log/int64.js';

export function readCheckpointFile(dbPath: string, name: string): number {
  return readInt64(readFileSync(join(dbPath, name)), 0);
}

export function writeCheckpointFile(dbPath: string, name: string, value: number): void {
  const bytes = Buffer.alloc(8);
  writeInt64(bytes, 0, value);
  writeFileSync(join(dbPath, name), bytes);
}

/**
 * Sets writer.chk back to `earlier`, a value it held before, as a crash of the machine may leave
 * it (group commits write it without an fsync; a SIGKILL keeps the page cache, so a kill alone
 * seldom does); never behind the start of the chunk it points into now, since a chunk switch
 * flushes it. Returns how many bytes of log lie past the value set.
 */
export function setWriterBack(dbPath: string, earlier: number, chunkSizeBytes: number): number {
  const now = readCheckpointFile(dbPath, CheckpointName.writer);
  const back = Math.max(earlier, Math.floor(now / chunkSizeBytes) * chunkSizeBytes);
  if (back >= now) return 0;
  writeCheckpointFile(dbPath, CheckpointName.writer, back);
  return now - back;
}
