/**
 * Extracting a backup archive into a scratch folder, with every file write accounted for: the
 * extraction has ended only when each file it opened is closed. A damaged or truncated archive
 * stops the reading part way through; the files already being written are then closed and
 * awaited, so the caller can remove the scratch folder without racing a write that is still
 * creating files in it. Files are written with their holes kept (sparse-copy.ts): an archive
 * stores a preallocated chunk's zeroes, and a restore must not turn them into disk blocks.
 */
import { createReadStream } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Parser, type ReadEntry } from 'tar';
import { SparseWriter } from './sparse-copy.js';

export class ArchiveExtraction {
  private readonly writes = new Set<Promise<void>>();
  private stopped = false;

  /** `accepts` says which entry paths are written; the others are read past. */
  constructor(private readonly folder: string, private readonly accepts: (entryPath: string) => boolean) {}

  /** Resolves when every accepted entry is written; rejects with the first read or write error. */
  async run(archive: string): Promise<void> {
    try {
      await this.read(archive);
      await Promise.all(this.writes);
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  private read(archive: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const input = createReadStream(archive);
      const parser = new Parser({ strict: true });
      // The parser may go on emitting entries after an error: nothing more is read or written.
      const fail = (error: Error) => {
        this.stopped = true;
        input.destroy();
        reject(error);
      };
      parser.on('entry', (entry: ReadEntry) => this.write(entry, fail));
      parser.on('error', fail);
      parser.on('abort', fail);
      parser.on('end', resolve);
      input.on('error', fail);
      input.pipe(parser);
    });
  }

  /** Closes the files still open and waits for every write to end, however it ends. */
  private async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled(this.writes);
  }

  private write(entry: ReadEntry, fail: (error: Error) => void): void {
    // Only regular files and folders are part of a backup: links and devices are read past.
    if (this.stopped || !this.accepts(entry.path) || (entry.type !== 'File' && entry.type !== 'Directory')) {
      entry.resume();
      return;
    }
    const write = this.writeEntry(entry);
    this.writes.add(write);
    write.catch(fail);
  }

  private async writeEntry(entry: ReadEntry): Promise<void> {
    const target = join(this.folder, entry.path);
    if (entry.type === 'Directory') {
      entry.resume();
      await mkdir(target, { recursive: true });
      return;
    }
    await mkdir(dirname(target), { recursive: true });
    if (this.stopped) {
      entry.resume();
      return;
    }
    const output = await open(target, 'w');
    try {
      const writer = new SparseWriter(output, target);
      // A stop ends the loop at the next piece; the entry is then read past, not written.
      for await (const data of entry as AsyncIterable<Buffer>) {
        if (this.stopped) break;
        await writer.write(data);
      }
      if (!this.stopped) await writer.end();
    } finally {
      await output.close();
    }
  }
}
