/**
 * The one seam between the database and the disk: every file the engine (and the backup, which
 * writes a database's copy) opens, writes, syncs, truncates, renames or deletes goes through
 * `fileSystem`. It is node:fs and node:fs/promises themselves; a test that needs a disk that fails
 * (EIO on fsync, ENOSPC part way through a write) installs another one with `useFileSystem` and
 * puts the real one back when it is done, so no test patches Node's own functions or prototypes.
 *
 * Callers read `fileSystem.writeSync(...)` at the call: one property lookup, no allocation, and
 * the file system installed now is the one used. A FileHandle from `open` carries its own write,
 * sync and datasync, so a faulty `open` hands out handles that fail.
 * Reads of directories and whole small files (readdir, readFile, stat) stay on node:fs: nothing
 * durable depends on them failing in a particular way.
 */
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

type Flags = string | number;
type WriteCallback = (error: NodeJS.ErrnoException | null, bytesWritten: number, buffer: Buffer) => void;
type DoneCallback = (error: NodeJS.ErrnoException | null) => void;

export interface FileSystem {
  open(path: string, flags?: Flags, mode?: number): Promise<FileHandle>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;

  openSync(path: string, flags?: Flags, mode?: number): number;
  /** Positional reads of an open file (chunks, index files). */
  readSync(fd: number, buffer: Buffer, offset: number, length: number, position: number): number;
  writeSync(fd: number, buffer: Buffer, offset: number, length: number, position: number): number;
  /** The positional write of a descriptor on the thread pool. */
  write(fd: number, buffer: Buffer, offset: number, length: number, position: number, callback: WriteCallback): void;
  writeFileSync(path: string, data: string | Buffer, options: { mode: number }): void;
  fsyncSync(fd: number): void;
  fsync(fd: number, callback: DoneCallback): void;
  ftruncateSync(fd: number, length: number): void;
  ftruncate(fd: number, length: number, callback: DoneCallback): void;
  linkSync(existing: string, path: string): void;
  renameSync(from: string, to: string): void;
  unlinkSync(path: string): void;
}

/** The real disk: Node's own functions, so the default costs no extra call. */
export const nodeFileSystem: FileSystem = Object.freeze({
  open: fsp.open,
  rename: fsp.rename,
  unlink: fsp.unlink,
  openSync: fs.openSync,
  readSync: fs.readSync,
  writeSync: fs.writeSync,
  write: fs.write,
  writeFileSync: fs.writeFileSync,
  fsyncSync: fs.fsyncSync,
  fsync: fs.fsync,
  ftruncateSync: fs.ftruncateSync,
  ftruncate: fs.ftruncate,
  linkSync: fs.linkSync,
  renameSync: fs.renameSync,
  unlinkSync: fs.unlinkSync,
});

/** The file system in use; read at each call, never kept. */
export let fileSystem: FileSystem = nodeFileSystem;

/**
 * Installs `replacement` for every file operation of this process from now on; returns the
 * function that puts back the one it replaced.
 */
export function useFileSystem(replacement: FileSystem): () => void {
  const previous = fileSystem;
  fileSystem = replacement;
  let restored = false;
  return () => {
    // Once only: a second call (an early restore, then the teardown's) must not undo a later install.
    if (restored) return;
    restored = true;
    fileSystem = previous;
  };
}
