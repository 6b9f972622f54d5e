/**
 * `svcdb backup --archive FILE.tar.gz`: the full backup as one gzip-compressed tar file, with the
 * same layout as a backup folder and the manifest as its first entry. Written with node-tar, the
 * library that reads it back (archive-reader.ts): one tar implementation for both directions.
 *
 * Entries are appended one at a time, each awaited before the next is read, so the full copy's
 * order is the archive's order and every file is read at the moment the procedure says. A tar
 * header states the entry's size before its bytes, so each file is streamed at the size read when
 * it was opened (and an ongoing chunk as its prefix plus zeroes, as chunk-copy.ts explains).
 *
 * The archive is written to a temp name beside FILE, fsynced (unless --no-sync) and renamed into
 * place when it is complete: FILE is always either the previous archive or a whole new one. The
 * temp name carries the writer's pid, so the next archive backup deletes the temp files of runs
 * that were killed, and never one that is still being written (archive-temp.ts).
 *
 * The file is written through a FileHandle stream: Node's write stream repeats a write that stops
 * short, and a failed write (a full disk: SVCDB_ERR_BACKUP_DISK_FULL) fails the next entry and the
 * finish at once rather than leaving the archive waiting for a stream that will never drain.
 */
import { once } from 'node:events';
import type { WriteStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { Header, Pack, ReadEntry } from 'tar';
import { Errors } from '../../common/errors.js';
import { archiveTempName } from './archive-temp.js';
import { Durability, ioError, type QuickCopy } from './file-copy.js';
import type { BackupTarget } from './target.js';
import { fileSystem } from '../../storage/disk/file-system.js';

const READ_BLOCK_BYTES = 1024 * 1024;
/** zlib level 1: chunk data compresses well already at the fastest level, and backups must be quick. */
const GZIP_LEVEL = 1;
const ZEROES = Buffer.alloc(READ_BLOCK_BYTES);

/** The bytes of an entry: `prefixBytes` read from the file, then zeroes up to `totalBytes`. */
async function* entryBytes(handle: FileHandle, path: string, prefixBytes: number, totalBytes: number): AsyncGenerator<Buffer> {
  let position = 0;
  while (position < prefixBytes) {
    const block = Buffer.allocUnsafe(Math.min(READ_BLOCK_BYTES, prefixBytes - position));
    const { bytesRead } = await handle.read(block, 0, block.length, position);
    if (bytesRead === 0) throw Errors.backupSourceChanged.create(`${path} shrank to ${position} bytes while it was archived`);
    yield block.subarray(0, bytesRead);
    position += bytesRead;
  }
  while (position < totalBytes) {
    const length = Math.min(READ_BLOCK_BYTES, totalBytes - position);
    yield ZEROES.subarray(0, length);
    position += length;
  }
}

export class ArchiveTarget implements BackupTarget {
  // portable: no owner names or ids of the machine that made the archive.
  private readonly archive = new Pack({ gzip: { level: GZIP_LEVEL }, portable: true });
  private readonly output: WriteStream;
  private readonly written: Promise<void>;
  private failure: Error | undefined;
  /** Rejects with the first failure of the archive or its file; every wait races it. */
  private readonly failed: Promise<never>;
  private fail!: (error: Error) => void;
  /** The entry being appended; the next one waits for it. */
  private turns: Promise<void> = Promise.resolve();

  private constructor(readonly path: string, private readonly temp: string, handle: FileHandle, private readonly durability: Durability) {
    this.failed = new Promise<never>((_, reject) => {
      this.fail = (error) => {
        this.failure ??= ioError(this.path, 'write the archive', error);
        reject(this.failure);
      };
    });
    // Reported through the awaited calls; these keep an early error from being unhandled.
    this.failed.catch(() => undefined);
    this.output = handle.createWriteStream();
    this.archive.on('error', (error) => this.fail(error as Error));
    this.output.on('error', (error) => this.fail(error));
    this.archive.pipe(this.output);
    this.written = finished(this.output);
    this.written.catch(() => undefined);
  }

  static async create(path: string, durability = new Durability()): Promise<ArchiveTarget> {
    const temp = archiveTempName(path);
    let handle: FileHandle;
    try {
      handle = await fileSystem.open(temp, 'wx');
    } catch (error) {
      throw ioError(temp, 'create', error);
    }
    return new ArchiveTarget(path, temp, handle, durability);
  }

  writeBytes(file: string, bytes: Buffer | string): Promise<void> {
    return this.inTurn(() => this.append([Buffer.from(bytes)], file, Buffer.byteLength(bytes)));
  }

  /** The archive appears whole or not at all: a checkpoint goes in at its turn in the file order. */
  writeCheckpoint(file: string, bytes: Buffer): Promise<void> {
    return this.writeBytes(file, bytes);
  }

  async commitCheckpoints(): Promise<void> {
    // Nothing held back (writeCheckpoint).
  }

  copyFile(source: string, file: string): Promise<number | undefined> {
    return this.inTurn(async () => {
      const handle = await openIfPresent(source);
      if (!handle) return undefined;
      try {
        const size = (await handle.stat()).size;
        await this.append(entryBytes(handle, source, size, size), file, size);
        return size;
      } finally {
        await handle.close();
      }
    });
  }

  copyPrefix(source: string, file: string, prefixBytes: number, fileBytes: number): Promise<number | undefined> {
    return this.inTurn(async () => {
      const handle = await openIfPresent(source);
      if (!handle) return undefined;
      try {
        await this.append(entryBytes(handle, source, prefixBytes, fileBytes), file, fileBytes);
        return prefixBytes;
      } finally {
        await handle.close();
      }
    });
  }

  /** An archive starts empty: every file is copied. */
  async copyIfChanged(source: string, file: string): Promise<QuickCopy | undefined> {
    const bytes = await this.copyFile(source, file);
    return bytes === undefined ? undefined : { bytes, copied: true };
  }

  /**
   * Runs one entry's work after the entry before it is done: entries go in one at a time, and
   * each file is opened and read when its turn comes, even when the caller copies concurrently.
   */
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.turns.then(work);
    this.turns = turn.then(() => undefined, () => undefined);
    return turn;
  }

  /** Appends one entry and resolves once the archive has taken all of it. */
  private async append(source: Iterable<Buffer> | AsyncIterable<Buffer>, name: string, size: number): Promise<void> {
    if (this.failure) throw this.failure;
    await Promise.race([this.failed, this.appendEntry(source, name, size)]);
    this.durability.report(`archived ${name} into ${this.temp}`);
  }

  /**
   * The entry goes in under a tar header of its own, its bytes written with backpressure; it is
   * taken when the archive has read its end.
   */
  private async appendEntry(source: Iterable<Buffer> | AsyncIterable<Buffer>, name: string, size: number): Promise<void> {
    const entry = new ReadEntry(new Header({ path: name, mode: 0o644, size, mtime: new Date(), type: 'File' }));
    const taken = once(entry, 'end');
    this.archive.add(entry);
    for await (const block of source) {
      if (this.failure) throw this.failure;
      if (!entry.write(block)) await Promise.race([this.failed, once(entry, 'drain')]);
    }
    entry.end();
    await taken;
  }

  /** Finishes the archive, makes it durable and moves it into place. */
  async finish(): Promise<number> {
    if (this.failure) throw this.failure;
    this.archive.end();
    await Promise.race([this.failed, this.written]);
    try {
      const bytes = await this.durability.syncFileAt(this.temp);
      await fileSystem.rename(this.temp, this.path);
      this.durability.changed(this.path, 'placed');
      await this.durability.syncAll();
      return bytes;
    } catch (error) {
      throw ioError(this.path, 'put the archive in place', error);
    }
  }

  /** Drops the unfinished archive; the file at `path`, if any, is left as it was. */
  async abort(): Promise<void> {
    this.archive.destroy();
    this.output.destroy();
    await fileSystem.unlink(this.temp).catch(() => undefined);
  }
}

async function openIfPresent(path: string): Promise<FileHandle | undefined> {
  try {
    return await fileSystem.open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw Errors.backupIo.create(path, 'open', (error as Error).message);
  }
}
