import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';

/**
 * The prototype every FileHandle shares, for tests that patch one of its methods to inject a
 * fault (and put it back in teardown). Node does not export the class: a handle on the temp
 * directory, closed at once, gives it.
 */
export async function fileHandlePrototype<T extends object>(): Promise<T> {
  const probe = await open(tmpdir(), 'r');
  await probe.close();
  return Object.getPrototypeOf(probe) as T;
}

/** The error a failing disk gives a call: EIO, as Node reports it. */
export function ioError(syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EIO: i/o error, ${syscall}`), { code: 'EIO', errno: -5, syscall });
}
