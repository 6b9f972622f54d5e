import type { FileHandle } from 'node:fs/promises';
import { Errors, type SvcError } from '../../common/errors.js';
import { fileSystem } from './file-system.js';

/** errno codes that mean "no room": the write may succeed once space or quota is freed. */
const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT']);
/** errno codes that mean "no descriptor": the open may succeed once descriptors are freed. */
const DESCRIPTOR_CODES = new Set(['EMFILE', 'ENFILE']);

export function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether an error is a full disk or quota: the operation wrote nothing durable and may be retried later. */
export function isDiskFull(error: unknown): boolean {
  return Errors.storageDiskFull.is(error) || DISK_FULL_CODES.has(errnoCode(error) ?? '');
}

/**
 * Whether a storage error leaves the engine healthy: a full disk or a lack of descriptors refuses
 * the write in hand, and the next one may succeed. Anything else (EIO, a failed fsync) is fatal.
 */
export function isTransientStorageError(error: unknown): boolean {
  return Errors.storageDiskFull.is(error) || Errors.storageDescriptorsExhausted.is(error);
}

/** The coded error for a failed storage operation on `file`, by its errno. */
export function storageError(file: string, operation: string, error: unknown): SvcError {
  const code = errnoCode(error);
  if (Errors.storageDiskFull.is(error) || Errors.storageDescriptorsExhausted.is(error) || Errors.storageIo.is(error)) return error;
  if (code && DISK_FULL_CODES.has(code)) return Errors.storageDiskFull.create(file, `${operation}: ${code}`);
  if (code && DESCRIPTOR_CODES.has(code)) return Errors.storageDescriptorsExhausted.create(file, `${operation}: ${code}`);
  return Errors.storageIo.create(file, operation, String(error));
}

/**
 * write(2) may write fewer bytes than asked when the disk fills up part way; the rest then fails
 * with ENOSPC. These write every byte or throw: a short count is never taken for success.
 */
export function writeFullySync(fd: number, buffer: Buffer, offset: number, length: number, position: number, file: string): void {
  let done = 0;
  try {
    while (done < length) {
      const written = fileSystem.writeSync(fd, buffer, offset + done, length - done, position + done);
      if (written <= 0) throw Object.assign(new Error('write made no progress'), { code: 'ENOSPC' });
      done += written;
    }
  } catch (error) {
    throw storageError(file, 'write', error);
  }
}

/** One positional write on a descriptor, off the event loop. */
function writeFd(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesWritten: number }> {
  return new Promise((resolve, reject) => {
    fileSystem.write(fd, buffer, offset, length, position, (error, bytesWritten) => (error ? reject(error) : resolve({ bytesWritten })));
  });
}

/** The asynchronous form of writeFullySync, for a FileHandle or a descriptor. */
export async function writeFully(target: FileHandle | number, buffer: Buffer, offset: number, length: number, position: number, file: string): Promise<void> {
  let done = 0;
  try {
    while (done < length) {
      const { bytesWritten } = typeof target === 'number'
        ? await writeFd(target, buffer, offset + done, length - done, position + done)
        : await target.write(buffer, offset + done, length - done, position + done);
      if (bytesWritten <= 0) throw Object.assign(new Error('write made no progress'), { code: 'ENOSPC' });
      done += bytesWritten;
    }
  } catch (error) {
    throw storageError(file, 'write', error);
  }
}
