import type { FileHandle } from 'node:fs/promises';
import { createHash, randomUUID, type Hash } from 'node:crypto';
import { join } from 'node:path';
import { Errors } from '../../common/errors.js';
import { storageError, writeFully } from '../disk/file-write.js';
import type { Logger } from '../../common/logger.js';
import { BloomFilter, BloomKey } from './bloom-filter.js';
import { fsyncDirectory, replaceFileDurably } from '../disk/durable-file.js';
import {
  ENTRY_BYTES, MIDPOINT_INTERVAL, encodeFooter, encodeHeader, midpointCountFor, writeEntry,
} from './index-file-format.js';
import { IndexFile, bloomFilterPathOf } from './index-file.js';
import { Midpoints } from './midpoints.js';
import { PRIVATE_FILE_MODE } from '../disk/file-modes.js';
import { fileSystem } from '../disk/file-system.js';

/** Entries buffered before one write: 1 MiB. */
const BUFFER_ENTRIES = 43_690;

export interface IndexFileWriterOptions {
  directory: string;
  level: number;
  /** Exactly this many entries must be added (it is in the header, written first). */
  entryCount: number;
  /** An upper bound of the distinct hashes, to size the bloom filter. */
  distinctHashesMax: number;
  logger: Logger;
}

/**
 * Writes one index file front to back: entries arrive sorted and are buffered, hashed (md5) and
 * written 1 MiB at a time; midpoints and the bloom filter are built on the way. The file is
 * written as `<id>.tmp`, fsynced, its bloom filter made durable, then renamed to `<id>` and the
 * directory fsynced: a crash leaves either nothing or a complete file (a `.tmp` is deleted at
 * the next open, and a file the indexmap does not list too).
 */
export class IndexFileWriter {
  readonly id: string;
  private readonly path: string;
  private readonly tempPath: string;
  private readonly options: IndexFileWriterOptions;
  private readonly handle: FileHandle;
  private readonly md5: Hash = createHash('md5');
  private readonly midpoints: Midpoints;
  private readonly bloom: BloomFilter;
  private readonly bloomKey = new BloomKey();
  private buffer = Buffer.allocUnsafe(BUFFER_ENTRIES * ENTRY_BYTES);
  private bufferedBytes = 0;
  private fileOffset = 0;
  private count = 0;
  private midpointCount = 0;
  private distinctHashes = 0;
  private lastHigh = -1;
  private lastLow = -1;
  private lastEventNumber = 0;
  private lastLogPosition = 0;

  private constructor(options: IndexFileWriterOptions, id: string, handle: FileHandle) {
    this.options = options;
    this.id = id;
    this.path = join(options.directory, id);
    this.tempPath = `${this.path}.tmp`;
    this.handle = handle;
    this.midpoints = new Midpoints(midpointCountFor(options.entryCount));
    this.bloom = BloomFilter.create(BloomFilter.sizeForItems(Math.min(options.distinctHashesMax, options.entryCount)));
    this.append(encodeHeader(options.level, options.entryCount));
  }

  static async create(options: IndexFileWriterOptions): Promise<IndexFileWriter> {
    const id = randomUUID();
    const tempPath = join(options.directory, `${id}.tmp`);
    let handle: FileHandle;
    try {
      handle = await fileSystem.open(tempPath, 'wx', PRIVATE_FILE_MODE);
    } catch (error) {
      throw storageError(tempPath, 'create', error);
    }
    return new IndexFileWriter(options, id, handle);
  }

  get entriesAdded(): number {
    return this.count;
  }

  /**
   * Adds the next entry; entries must come in ascending (hash, eventNumber, logPosition) order.
   * Returns true when the buffer is full: the caller then awaits drain().
   */
  add(high: number, low: number, eventNumber: number, logPosition: number): boolean {
    const index = this.count;
    if (index >= this.options.entryCount) throw new TypeError(`index file ${this.id}: more than ${this.options.entryCount} entries`);
    const order = high - this.lastHigh || low - this.lastLow || eventNumber - this.lastEventNumber || logPosition - this.lastLogPosition;
    if (order < 0) throw new TypeError(`index file ${this.id}: entry ${index} is out of order`);
    if (high !== this.lastHigh || low !== this.lastLow || index === 0) {
      this.distinctHashes++;
      this.bloom.add(this.bloomKey.set(high, low));
    }
    if (index % MIDPOINT_INTERVAL === 0 || index === this.options.entryCount - 1) {
      this.midpoints.set(this.midpointCount++, high, low, eventNumber, index);
    }
    writeEntry(this.buffer, this.bufferedBytes, high, low, eventNumber, logPosition);
    this.bufferedBytes += ENTRY_BYTES;
    this.count = index + 1;
    this.lastHigh = high;
    this.lastLow = low;
    this.lastEventNumber = eventNumber;
    this.lastLogPosition = logPosition;
    return this.bufferedBytes + ENTRY_BYTES > this.buffer.length;
  }

  async drain(): Promise<void> {
    if (this.bufferedBytes === 0) return;
    const bytes = this.buffer.subarray(0, this.bufferedBytes);
    this.md5.update(bytes);
    await this.write(bytes);
    this.bufferedBytes = 0;
  }

  /** Completes the file, makes it and its bloom filter durable, and opens it for lookups. */
  async finish(): Promise<IndexFile> {
    if (this.count !== this.options.entryCount) {
      throw new TypeError(`index file ${this.id}: ${this.count} entries added, ${this.options.entryCount} announced`);
    }
    await this.drain();
    const footer = encodeFooter({ entryCount: this.count, midpointCount: this.midpointCount, distinctHashes: this.distinctHashes });
    const tail = Buffer.concat([this.midpoints.encode(), footer]);
    this.md5.update(tail);
    await this.write(Buffer.concat([tail, this.md5.digest()]));
    try {
      await this.handle.sync();
    } catch (error) {
      throw Errors.storageIo.create(this.tempPath, 'fsync', String(error));
    } finally {
      await this.handle.close();
    }
    await replaceFileDurably(bloomFilterPathOf(this.path), this.bloom.serialize());
    try {
      await fileSystem.rename(this.tempPath, this.path);
    } catch (error) {
      throw storageError(this.tempPath, 'rename', error);
    }
    await fsyncDirectory(this.options.directory);
    return new IndexFile({
      id: this.id,
      path: this.path,
      fd: fileSystem.openSync(this.path, 'r'),
      level: this.options.level,
      entryCount: this.count,
      distinctHashes: this.distinctHashes,
      midpoints: this.midpoints,
      bloom: this.bloom,
      logger: this.options.logger,
    });
  }

  /** Gives up on the file after a failure; never throws. */
  async abort(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await fileSystem.unlink(this.tempPath).catch(() => undefined);
  }

  private append(bytes: Buffer): void {
    bytes.copy(this.buffer, this.bufferedBytes);
    this.bufferedBytes += bytes.length;
  }

  private async write(bytes: Buffer): Promise<void> {
    await writeFully(this.handle, bytes, 0, bytes.length, this.fileOffset, this.tempPath);
    this.fileOffset += bytes.length;
  }
}
