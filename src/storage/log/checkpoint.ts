import { existsSync, readFileSync, closeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Errors } from '../../common/errors.js';
import { replaceFileDurablySync } from '../disk/durable-file.js';
import { readInt64, writeInt64 } from './int64.js';
import { writeFullySync } from '../disk/file-write.js';
import { fileSystem } from '../disk/file-system.js';

const CHECKPOINT_BYTES = 8;
/** Reads of a checkpoint from outside the node until two agree (readCheckpointFile). */
const STABLE_READS_MAX = 10;

/** The value in a checkpoint file's bytes; any size but 8 bytes is a corrupt file. */
export function decodeCheckpoint(bytes: Buffer, path: string): number {
  if (bytes.length !== CHECKPOINT_BYTES) {
    throw Errors.storageCorrupt.create(path, 0, `checkpoint holds ${bytes.length} bytes instead of ${CHECKPOINT_BYTES}`);
  }
  return readInt64(bytes, 0);
}

/**
 * An 8-byte little-endian int64 in a file of its own. `value` is the last value written.
 *
 * Two ways to persist: writer.chk and chaser.chk move often, so they are overwritten in place (an
 * aligned 8-byte write at offset 0 lies inside one sector and cannot tear); the others change
 * rarely and are replaced by temp file + rename. An in-place checkpoint can also be moved on
 * without an fsync (`advance`) and made durable later (`flush`): writer.chk moves so at every
 * group commit, because the log's records carry their own position and checksum and recovery
 * finds the log's end past a writer.chk that lags it (TransactionLog.open).
 */
export class Checkpoint {
  private fd: number | undefined;
  /** The last flush started; the next waits for it, so that flushes end in call order. */
  private flushing: Promise<void> = Promise.resolve();
  /** The value known to be on disk (fsynced). */
  private flushed: number;
  private readonly buffer = Buffer.alloc(CHECKPOINT_BYTES);

  private constructor(readonly path: string, private current: number, private readonly inPlace: boolean) {
    this.flushed = current;
  }

  static open(directory: string, name: string, initial: number, inPlace: boolean): Checkpoint {
    const path = join(directory, name);
    if (!existsSync(path)) {
      const checkpoint = new Checkpoint(path, initial, inPlace);
      checkpoint.persist(initial, true);
      return checkpoint;
    }
    const bytes = readFileSync(path);
    return new Checkpoint(path, decodeCheckpoint(bytes, path), inPlace);
  }

  get value(): number {
    return this.current;
  }

  /** The value the file holds durably: `value` once the last flush has ended. */
  get flushedValue(): number {
    return this.flushed;
  }

  /** Persists `value`; when this returns the value survives a crash. */
  write(value: number): void {
    this.persist(value, false);
  }

  /**
   * Writes `value` over an in-place checkpoint's file without an fsync: readers of the file (a
   * backup) see it at once, a crash of the process keeps it, and a crash of the machine may lose
   * it until the next flush.
   */
  advance(value: number): void {
    if (!this.inPlace) throw new TypeError(`${this.path} is replaced whole, not advanced in place`);
    this.overwrite(this.descriptor(), value);
    this.current = value;
  }

  /**
   * Makes the last value written durable, its fsync off the event loop. Flushes run one at a
   * time, in call order; one that finds the value already durable costs nothing.
   */
  flush(): Promise<void> {
    if (!this.inPlace || this.flushed === this.current) return this.flushing;
    const run = this.flushing.then(() => this.syncInPlace());
    this.flushing = run.catch(() => undefined);
    return run;
  }

  /** flush() on the event loop: for a clean close. */
  flushSync(): void {
    if (!this.inPlace || this.flushed === this.current) return;
    const value = this.current;
    this.syncDescriptor(this.descriptor());
    this.flushed = value;
  }

  /** Writes `value` and makes it durable: advance() then flush() for an in-place checkpoint. */
  writeAsync(value: number): Promise<void> {
    if (!this.inPlace) {
      this.write(value);
      return Promise.resolve();
    }
    this.advance(value);
    return this.flush();
  }

  private async syncInPlace(): Promise<void> {
    const value = this.current;
    if (value === this.flushed) return;
    const fd = this.descriptor();
    await new Promise<void>((resolve, reject) => fileSystem.fsync(fd, (error) => (error ? reject(error) : resolve())))
      .catch((error: unknown) => {
        throw Errors.storageIo.create(this.path, 'fsync', String(error));
      });
    this.flushed = value;
  }

  private descriptor(): number {
    return (this.fd ??= fileSystem.openSync(this.path, 'r+'));
  }

  private syncDescriptor(fd: number): void {
    try {
      fileSystem.fsyncSync(fd);
    } catch (error) {
      throw Errors.storageIo.create(this.path, 'fsync', String(error));
    }
  }

  private persist(value: number, creating: boolean): void {
    writeInt64(this.buffer, 0, value);
    if (!this.inPlace || creating) {
      replaceFileDurablySync(this.path, this.buffer);
    } else {
      const fd = this.descriptor();
      this.overwrite(fd, value);
      this.syncDescriptor(fd);
    }
    this.current = value;
    this.flushed = value;
  }

  /**
   * Writes `value` over the file's 8 bytes. A write that fails (a full disk) may have written part
   * of them: the durable value is written back before the failure is reported, so the file never
   * holds a mix; when even that fails the error is fatal.
   */
  private overwrite(fd: number, value: number): void {
    const bytes = Buffer.alloc(CHECKPOINT_BYTES);
    writeInt64(bytes, 0, value);
    try {
      writeFullySync(fd, bytes, 0, CHECKPOINT_BYTES, 0, this.path);
    } catch (error) {
      writeInt64(bytes, 0, this.current);
      try {
        writeFullySync(fd, bytes, 0, CHECKPOINT_BYTES, 0, this.path);
      } catch (restoreError) {
        throw Errors.storageIo.create(this.path, 'restore after a failed write', String(restoreError));
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.flushing;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * A checkpoint read from outside the node (backup, restore, verify), read-only and without the
 * lock: its bytes and value as they are at one moment, undefined if the file is absent. writer.chk
 * and chaser.chk are overwritten in place while the node runs, so the file is read until two reads
 * agree.
 */
export async function readCheckpointFile(path: string): Promise<{ bytes: Buffer; value: number } | undefined> {
  let previous: Buffer | undefined;
  for (let read = 0; read < STABLE_READS_MAX; read++) {
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    decodeCheckpoint(bytes, path);
    if (previous?.equals(bytes)) break;
    previous = bytes;
  }
  // Ten reads that all differ: the value is moving fast; the last one read is as good as any.
  return { bytes: previous!, value: decodeCheckpoint(previous!, path) };
}
