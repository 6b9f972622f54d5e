import { existsSync, readFileSync, closeSync } from 'node:fs';
import { readFile, type FileHandle } from 'node:fs/promises';
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
 * An 8-byte little-endian int64 in a file of its own. `value` is the last durable value.
 *
 * Two ways to persist: writer.chk and chaser.chk move with every group commit, so they are
 * overwritten in place and fdatasynced (an aligned 8-byte write at offset 0 lies inside one
 * sector and cannot tear); the others change rarely and are replaced by temp file + rename.
 */
export class Checkpoint {
  private fd: number | undefined;
  private asyncHandle: FileHandle | undefined;
  /** The last in-place write started; the next waits for it. */
  private writing: Promise<void> = Promise.resolve();
  private readonly buffer = Buffer.alloc(CHECKPOINT_BYTES);

  private constructor(readonly path: string, private current: number, private readonly inPlace: boolean) {}

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

  /** Persists `value`; when this returns the value survives a crash. */
  write(value: number): void {
    this.persist(value, false);
  }

  /**
   * The hot-path form for in-place checkpoints: the fsync runs off the event loop. Calls run one
   * at a time, in call order: two at once could each open the file (one handle left to the
   * collector) and finish out of order, leaving the older value on disk.
   */
  writeAsync(value: number): Promise<void> {
    if (!this.inPlace) {
      this.write(value);
      return Promise.resolve();
    }
    const run = this.writing.then(() => this.writeInPlace(value));
    this.writing = run.catch(() => undefined);
    return run;
  }

  private async writeInPlace(value: number): Promise<void> {
    this.asyncHandle ??= await fileSystem.open(this.path, 'r+');
    this.overwrite(this.asyncHandle.fd, value);
    try {
      await this.asyncHandle.datasync();
    } catch (error) {
      throw Errors.storageIo.create(this.path, 'fsync', String(error));
    }
    this.current = value;
  }

  private persist(value: number, creating: boolean): void {
    writeInt64(this.buffer, 0, value);
    if (!this.inPlace || creating) {
      replaceFileDurablySync(this.path, this.buffer);
    } else {
      this.fd ??= fileSystem.openSync(this.path, 'r+');
      this.overwrite(this.fd, value);
      try {
        fileSystem.fsyncSync(this.fd);
      } catch (error) {
        throw Errors.storageIo.create(this.path, 'fsync', String(error));
      }
    }
    this.current = value;
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
    await this.writing;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    await this.asyncHandle?.close();
    this.asyncHandle = undefined;
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
