/**
 * The redactor's copy of a chunk: the listed event records are read and redacted in memory, the
 * file is copied by the kernel (copy_file_range, no pass through this process) while this process
 * reads it once more to hash it with the redacted records laid over it, and then only the edited
 * records and the new MD5 are written into the copy. The node makes the copy durable when it
 * switches it in (redacted-chunk-check.ts); a copy it never switches in is deleted.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { copyFile, open, unlink, type FileHandle } from 'node:fs/promises';
import { Errors } from '../../common/errors.js';
import { decodeRecord, RecordKind } from '../../storage/record.js';
import { redactFrame } from '../../storage/redaction.js';
import type { EventReference } from './events-list.js';

const BLOCK_BYTES = 4 * 1024 * 1024;
const HASH_BYTES = 16;

export interface RecordToRedact {
  event: EventReference;
  /** Byte offset of the record's frame in the chunk file. */
  fileOffset: number;
}

interface EditedFrame {
  fileOffset: number;
  bytes: Buffer;
}

// Small positioned reads and writes are synchronous: a few hundred of them take milliseconds,
// where as many round trips through the thread pool take far longer on a busy machine.
function readExactly(fd: number, length: number, position: number, path: string): Buffer {
  const buffer = Buffer.alloc(length);
  if (readSync(fd, buffer, 0, length, position) !== length) throw Errors.storageCorrupt.create(path, position, 'the record runs past the end of the file');
  return buffer;
}

/** Reads and redacts each record, checking it is the event the node said lies there. */
function editedFrames(fd: number, sourcePath: string, records: readonly RecordToRedact[]): EditedFrame[] {
  const edited: EditedFrame[] = [];
  for (const { event, fileOffset } of records) {
    const length = readExactly(fd, 4, fileOffset, sourcePath).readUInt32LE(0) + 8;
    const bytes = readExactly(fd, length, fileOffset, sourcePath);
    const record = decodeRecord(bytes, 0);
    if (record.kind !== RecordKind.event || record.streamName !== event.streamName || record.eventNumber !== event.eventNumber) {
      throw Errors.storageCorrupt.create(sourcePath, fileOffset, `the record there is not event ${event.eventNumber}@${event.streamName}`);
    }
    if (redactFrame(bytes, 0)) edited.push({ fileOffset, bytes });
  }
  return edited.sort((a, b) => a.fileOffset - b.fileOffset);
}

/** Lays the parts of edited frames that fall in `block` (at file offset `position`) over it. */
function overlay(block: Buffer, length: number, position: number, frames: readonly EditedFrame[]): void {
  for (const { fileOffset, bytes } of frames) {
    const start = Math.max(fileOffset, position);
    const end = Math.min(fileOffset + bytes.length, position + length);
    if (start < end) bytes.copy(block, start - position, start - fileOffset, end - fileOffset);
  }
}

/** Reads `length` bytes at `position` into `block`, or fails on a short read. */
async function readBlock(handle: FileHandle, block: Buffer, length: number, position: number, path: string): Promise<Buffer> {
  const { bytesRead } = await handle.read(block, 0, length, position);
  if (bytesRead !== length) throw Errors.storageCorrupt.create(path, position + bytesRead, 'the chunk file ended early');
  return block;
}

/**
 * The MD5 of the first `hashedEnd` bytes of `source` with `frames` laid over them, read in large
 * blocks: the next block is read while this one is hashed.
 */
async function redactedHash(source: FileHandle, sourcePath: string, hashedEnd: number, frames: readonly EditedFrame[]): Promise<Buffer> {
  const hash = createHash('md5');
  const blocks = [Buffer.allocUnsafe(BLOCK_BYTES), Buffer.allocUnsafe(BLOCK_BYTES)];
  const lengthAt = (position: number) => Math.min(BLOCK_BYTES, hashedEnd - position);
  let next = hashedEnd > 0 ? readBlock(source, blocks[0], lengthAt(0), 0, sourcePath) : undefined;
  for (let position = 0, index = 0; next; position += BLOCK_BYTES, index ^= 1) {
    const block = await next;
    const length = lengthAt(position);
    const following = position + BLOCK_BYTES;
    next = following < hashedEnd ? readBlock(source, blocks[index ^ 1], lengthAt(following), following, sourcePath) : undefined;
    // A failure below must not leave the read in flight unobserved.
    next?.catch(() => undefined);
    overlay(block, length, position, frames);
    hash.update(block.subarray(0, length));
  }
  return hash.digest();
}

/** Writes the edited frames and the hash over the plain copy at `tempPath`, once it has the source's size. */
function patchCopy(tempPath: string, size: number, frames: readonly EditedFrame[], digest: Buffer): void {
  const fd = openSync(tempPath, 'r+');
  try {
    if (fstatSync(fd).size !== size) throw Errors.storageCorrupt.create(tempPath, 0, `the copy is ${fstatSync(fd).size} bytes, not ${size}`);
    for (const { fileOffset, bytes } of frames) writeFully(fd, bytes, fileOffset, tempPath);
    writeFully(fd, digest, size - HASH_BYTES, tempPath);
  } finally {
    closeSync(fd);
  }
}

function writeFully(fd: number, bytes: Buffer, position: number, path: string): void {
  for (let done = 0; done < bytes.length;) {
    const written = writeSync(fd, bytes, done, bytes.length - done, position + done);
    if (written === 0) throw Errors.storageIo.create(path, 'write', 'no byte was written');
    done += written;
  }
}

/**
 * Writes a redacted copy of `sourcePath` to `tempPath` (which must not exist). Returns how many
 * records it changed: 0 when every one was redacted already (the copy is then not made). The
 * copy is not fsynced: the node that switches it in does that.
 */
export async function writeRedactedCopy(sourcePath: string, tempPath: string, records: readonly RecordToRedact[]): Promise<number> {
  const source = await open(sourcePath, 'r');
  let copying: Promise<boolean> | undefined;
  try {
    const frames = editedFrames(source.fd, sourcePath, records);
    if (frames.length === 0) return 0;
    const size = (await source.stat()).size;
    // The kernel copies on a thread of the pool while this thread hashes (a file system that
    // clones files shares the blocks instead). A failed copy leaves no file (libuv removes what
    // it created), and an existing one is not ours to delete.
    copying = copyFile(sourcePath, tempPath, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE).then(() => true);
    copying.catch(() => undefined);
    const digest = await redactedHash(source, sourcePath, size - HASH_BYTES, frames);
    await copying;
    patchCopy(tempPath, size, frames, digest);
    return frames.length;
  } catch (error) {
    if (copying && (await copying.catch(() => false))) await unlink(tempPath).catch(() => undefined);
    throw error;
  } finally {
    await source.close();
  }
}
