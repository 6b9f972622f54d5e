import { close, open, read } from 'node:fs';
import { promisify } from 'node:util';
import { Errors } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import {
  ENTRY_BYTES, HEADER_BYTES, entryEventNumber, entryHigh, entryLogPosition, entryLow,
} from './index-file-format.js';
import type { IndexFile } from './index-file.js';
import { IndexFileWriter } from './index-file-writer.js';

const openAsync = promisify(open);
const readAsync = promisify(read);
const closeAsync = promisify(close);

/** Bytes read ahead per input file: 256 KiB keeps a merge of many files small in memory. */
const CURSOR_ENTRIES = 10_922;

/**
 * Reads one index file's entries in order, a buffer at a time, through its own descriptor (the
 * file's lookup descriptor stays free for readSync). The current entry is in the public fields.
 */
export class EntryCursor {
  high = 0;
  low = 0;
  eventNumber = 0;
  logPosition = 0;
  private readonly buffer = Buffer.allocUnsafe(CURSOR_ENTRIES * ENTRY_BYTES);
  private bufferedEntries = 0;
  private offsetInBuffer = 0;
  private nextEntry = 0;

  constructor(private readonly file: IndexFile, private readonly fd: number) {}

  static async open(file: IndexFile): Promise<EntryCursor> {
    try {
      return new EntryCursor(file, await openAsync(file.path, 'r'));
    } catch (error) {
      throw Errors.storageIo.create(file.path, 'open for merge', String(error));
    }
  }

  get done(): boolean {
    return this.offsetInBuffer >= this.bufferedEntries * ENTRY_BYTES && this.nextEntry >= this.file.entryCount;
  }

  /** Moves to the next buffered entry; false when the buffer is used up (then call refill). */
  advance(): boolean {
    this.offsetInBuffer += ENTRY_BYTES;
    if (this.offsetInBuffer >= this.bufferedEntries * ENTRY_BYTES) return false;
    this.decode();
    return true;
  }

  /** Reads the next buffer; afterwards either `done` or the current entry is the first of it. */
  async refill(): Promise<void> {
    const count = Math.min(CURSOR_ENTRIES, this.file.entryCount - this.nextEntry);
    this.bufferedEntries = 0;
    this.offsetInBuffer = 0;
    if (count === 0) return;
    const length = count * ENTRY_BYTES;
    const position = HEADER_BYTES + this.nextEntry * ENTRY_BYTES;
    let done = 0;
    try {
      while (done < length) {
        const { bytesRead } = await readAsync(this.fd, this.buffer, done, length - done, position + done);
        if (bytesRead === 0) throw Errors.indexCorrupt.create(this.file.path, 'file ends inside its entries');
        done += bytesRead;
      }
    } catch (error) {
      if ((error as { code?: string }).code?.startsWith('SVCDB_')) throw error;
      throw Errors.storageIo.create(this.file.path, 'read for merge', String(error));
    }
    this.nextEntry += count;
    this.bufferedEntries = count;
    this.decode();
  }

  async close(): Promise<void> {
    await closeAsync(this.fd).catch(() => undefined);
  }

  private decode(): void {
    const offset = this.offsetInBuffer;
    this.high = entryHigh(this.buffer, offset);
    this.low = entryLow(this.buffer, offset);
    this.eventNumber = entryEventNumber(this.buffer, offset);
    this.logPosition = entryLogPosition(this.buffer, offset);
  }
}

function compareCursors(a: EntryCursor, b: EntryCursor): number {
  return a.high - b.high || a.low - b.low || a.eventNumber - b.eventNumber || a.logPosition - b.logPosition;
}

/**
 * Merges sorted index files into one new file at `level`, streaming: each input is read a buffer
 * at a time and the smallest head entry goes out next (a linear pick: inputs are few).
 */
export async function mergeIndexFiles(
  inputs: readonly IndexFile[], directory: string, level: number, logger: Logger,
): Promise<IndexFile> {
  const entryCount = inputs.reduce((sum, file) => sum + file.entryCount, 0);
  const distinctHashesMax = inputs.reduce((sum, file) => sum + file.distinctHashes, 0);
  const writer = await IndexFileWriter.create({ directory, level, entryCount, distinctHashesMax, logger });
  const cursors: EntryCursor[] = [];
  try {
    for (const file of inputs) cursors.push(await EntryCursor.open(file));
    await Promise.all(cursors.map((cursor) => cursor.refill()));
    const active = cursors.filter((cursor) => !cursor.done);
    while (active.length > 0) {
      let best = 0;
      for (let index = 1; index < active.length; index++) {
        if (compareCursors(active[index], active[best]) < 0) best = index;
      }
      const cursor = active[best];
      if (writer.add(cursor.high, cursor.low, cursor.eventNumber, cursor.logPosition)) await writer.drain();
      if (!cursor.advance()) {
        await cursor.refill();
        if (cursor.done) active.splice(best, 1);
      }
    }
    return await writer.finish();
  } catch (error) {
    await writer.abort();
    throw error;
  } finally {
    await Promise.all(cursors.map((cursor) => cursor.close()));
  }
}
