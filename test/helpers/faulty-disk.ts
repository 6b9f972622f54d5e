/**
 * A disk that fails where a test says, through the storage's file-system seam
 * (src/storage/disk/file-system.ts): the test installs a file system made of the real one with
 * some operations replaced, and the real one is put back at teardown. Nothing of Node's own is
 * patched, and only files opened while the faulty one is installed carry handle faults.
 */
import type { FileHandle } from 'node:fs/promises';
import type { Test } from 'tap';
import { nodeFileSystem, useFileSystem, type FileSystem } from '../../src/storage/disk/file-system.js';

/** Installs the real file system with `changes`; returns what puts the previous one back (teardown does too). */
export function installFileSystem(t: Test, changes: Partial<FileSystem>): () => void {
  const restore = useFileSystem({ ...nodeFileSystem, ...changes });
  t.teardown(restore);
  return restore;
}

/** Stand-ins for a FileHandle's methods: each is given the real handle, to call through or not. */
export interface HandleFaults {
  write?: (handle: FileHandle, buffer: Buffer, offset?: number, length?: number, position?: number | null) => Promise<{ bytesWritten: number; buffer: Buffer }>;
  writev?: (handle: FileHandle, buffers: Buffer[], position?: number | null) => Promise<{ bytesWritten: number; buffers: Buffer[] }>;
  datasync?: (handle: FileHandle) => Promise<void>;
  sync?: (handle: FileHandle) => Promise<void>;
}

/**
 * An `open` whose handles run `faults` in place of their own methods. The handle is a proxy of
 * the real one: everything else (fd, close, a write stream made from it) reaches the real handle,
 * and a write stream's writes come back through the proxy's write and writev.
 */
export function openWithFaults(faults: HandleFaults): FileSystem['open'] {
  return async (path, flags, mode) => {
    const handle = await nodeFileSystem.open(path, flags, mode);
    return new Proxy(handle, {
      get(target, key, receiver) {
        const fault = faults[key as keyof HandleFaults] as ((handle: FileHandle, ...args: unknown[]) => unknown) | undefined;
        if (fault) return (...args: unknown[]) => fault(target, ...args);
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
  };
}

/** The error a failing disk gives a call: EIO, as Node reports it. */
export function ioError(syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EIO: i/o error, ${syscall}`), { code: 'EIO', errno: -5, syscall });
}
