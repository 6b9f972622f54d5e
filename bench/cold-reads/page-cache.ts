/**
 * Dropping a database's files from the page cache without root: the engine's own
 * dropFromPageCache (posix_fadvise DONTNEED, whole file) asks the kernel to forget the file's
 * clean pages. Every commit is fsynced, so a node's chunks and index files are clean.
 */
import { execa } from 'execa';
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { nowMs } from '../measure.js';
import { onPath } from '../peers/child.js';
import { dropFromPageCache } from '../../src/storage/disk/cold-reads.js';

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

function dropFile(file: string): void {
  if (!dropFromPageCache(file)) throw new Error('dropping files from the page cache needs native/build/Release/page_cache.node: run `npm rebuild`');
}

/** Drops every file under `directories` from the page cache. */
export function dropPageCache(directories: readonly string[]): void {
  for (const directory of directories) {
    for (const file of filesUnder(directory)) dropFile(file);
  }
}

/** Reads every file under `directories` once, so that the page cache holds them (memory permitting). */
export function fillPageCache(directories: readonly string[]): void {
  for (const directory of directories) {
    for (const file of filesUnder(directory)) readTimeMs(file);
  }
}

/** Bytes of `file` in the page cache, as util-linux's fincore counts them; undefined without it. */
async function residentBytes(file: string): Promise<number | undefined> {
  if (onPath('fincore') === undefined) return undefined;
  const { stdout } = await execa('fincore', ['--bytes', '--noheadings', '--output', 'RES', file]);
  return Number(stdout.trim());
}

/** Milliseconds to read the whole of `file` in 1 MiB reads, as a cold reader would. */
function readTimeMs(file: string): number {
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  const fd = openSync(file, 'r');
  const started = nowMs();
  try {
    for (let position = 0; ; position += buffer.length) {
      if (readSync(fd, buffer, 0, buffer.length, position) === 0) break;
    }
  } finally {
    closeSync(fd);
  }
  return nowMs() - started;
}

export interface DropCheck {
  file: string;
  bytes: number;
  warmMs: number;
  coldMs: number;
  residentWarm: number | undefined;
  residentDropped: number | undefined;
}

/**
 * Whether the drop works here: the time of a read of `file` once it is cached (a read before
 * it makes sure it is) beside the time of the first read after a drop, with what fincore counts
 * in the cache each time.
 */
export async function checkDrop(file: string): Promise<DropCheck> {
  readTimeMs(file);
  const warmMs = readTimeMs(file);
  const residentWarm = await residentBytes(file);
  dropFile(file);
  const residentDropped = await residentBytes(file);
  const coldMs = readTimeMs(file);
  return { file, bytes: statSync(file).size, warmMs, coldMs, residentWarm, residentDropped };
}
