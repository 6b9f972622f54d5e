/**
 * The redactor's copies of chunks, up to four at once: the listed event records are read and
 * redacted in memory, each file is copied by the kernel (copy_file_range, no pass through this
 * process) while this process reads the sources once more to hash them with the redacted records
 * laid over them (side by side, Md5Lanes), the edited records are written into the copies,
 * and the new MD5s last. The node can check a copy's bytes while its hash is computed,
 * and makes the copy durable when it switches it in (redacted-chunk-check.ts); a copy it never
 * switches in is deleted.
 */
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { copyFile, open, unlink, type FileHandle } from 'node:fs/promises';
import { Errors } from '../../common/errors.js';
import { Md5Lanes } from '../../common/md5-lanes.js';
import { CHUNK_HASH_BYTES } from '../../storage/log/chunk-format.js';
import { FRAME_BYTES, decodeRecord, RecordKind } from '../../storage/log/record.js';
import { COPIES_CHECKED_AT_ONCE } from '../../storage/maintenance/redacted-chunk-check.js';
import { redactFrame } from '../../storage/maintenance/redaction.js';
import type { EventReference } from './events-list.js';

/** Bytes read from each source at once: four lanes of two blocks stay within the CPU's caches. */
const BLOCK_BYTES = 1024 * 1024;

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
    const length = readExactly(fd, 4, fileOffset, sourcePath).readUInt32LE(0) + FRAME_BYTES;
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
async function readBlock(handle: FileHandle, block: Buffer, length: number, position: number, path: string): Promise<void> {
  const { bytesRead } = await handle.read(block, 0, length, position);
  if (bytesRead !== length) throw Errors.storageCorrupt.create(path, position + bytesRead, 'the chunk file ended early');
}

/** One chunk being copied: its source, its edited frames and where its copy goes. */
interface ChunkCopy {
  sourcePath: string;
  tempPath: string;
  source: FileHandle;
  size: number;
  frames: EditedFrame[];
}

/**
 * The MD5 of each source's first `size - 16` bytes with its frames laid over them, the sources
 * hashed side by side (Md5Lanes: four at most), read in large blocks: the next blocks are read
 * while these are hashed.
 */
async function redactedHashes(copies: readonly ChunkCopy[]): Promise<Buffer[]> {
  if (copies.length === 0) return [];
  const lanes = new Md5Lanes(BLOCK_BYTES);
  const hashedEnd = copies.map(({ size }) => size - CHUNK_HASH_BYTES);
  const lengthAt = (index: number, position: number) => Math.max(0, Math.min(BLOCK_BYTES, hashedEnd[index] - position));
  const readAll = (position: number, slot: number) => Promise.all(copies.map(({ source, sourcePath }, index) => {
    const length = lengthAt(index, position);
    return length > 0 ? readBlock(source, lanes.buffer(index, slot), length, position, sourcePath) : Promise.resolve();
  }));
  const end = Math.max(...hashedEnd);
  let next: Promise<unknown> | undefined = end > 0 ? readAll(0, 0) : undefined;
  for (let position = 0, slot = 0; next; position += BLOCK_BYTES, slot ^= 1) {
    await next;
    const following = position + BLOCK_BYTES;
    next = following < end ? readAll(following, slot ^ 1) : undefined;
    // A failure below must not leave the reads in flight unobserved.
    next?.catch(() => undefined);
    const lengths = copies.map((copy, index) => {
      const length = lengthAt(index, position);
      overlay(lanes.buffer(index, slot), length, position, copy.frames);
      return length;
    });
    lanes.update(slot, lengths);
  }
  return copies.map((_, index) => lanes.digest(index));
}

/** Writes `parts` into the copy at `tempPath` (the edited frames, then the hash), once it has the source's size. */
function writeIntoCopy({ tempPath, size }: ChunkCopy, parts: readonly EditedFrame[]): void {
  const fd = openSync(tempPath, 'r+');
  try {
    if (fstatSync(fd).size !== size) throw Errors.storageCorrupt.create(tempPath, 0, `the copy is ${fstatSync(fd).size} bytes, not ${size}`);
    for (const { fileOffset, bytes } of parts) writeFully(fd, bytes, fileOffset, tempPath);
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

export interface ChunkToCopy {
  sourcePath: string;
  /** Where the copy goes; it must not exist. */
  tempPath: string;
  records: readonly RecordToRedact[];
}

/** The most chunks copied at once: as many as the node checks at once, one per lane of the hash. */
export const CHUNKS_COPIED_AT_ONCE = COPIES_CHECKED_AT_ONCE;

/**
 * Writes a redacted copy of each chunk (four at most) to its `tempPath`. Returns how many records
 * each copy changed: 0 when every one was redacted already (that copy is then not made). The
 * kernel copies the files on threads of the pool while this thread hashes the sources with the
 * edits laid over them; `whileHashing` hears which copies hold their final bytes but the hash
 * (the node can start checking them then), and the hashes are written last. The copies are not
 * fsynced: the node that switches them in does that.
 */
export async function writeRedactedCopies(
  chunks: readonly ChunkToCopy[], whileHashing?: (tempPaths: string[]) => Promise<void>,
): Promise<number[]> {
  if (chunks.length > CHUNKS_COPIED_AT_ONCE) throw new TypeError(`at most ${CHUNKS_COPIED_AT_ONCE} chunks are copied at once`);
  const sources: FileHandle[] = [];
  const made: string[] = [];
  try {
    for (const { sourcePath } of chunks) sources.push(await open(sourcePath, 'r'));
    const copies: ChunkCopy[] = [];
    for (const [index, { sourcePath, tempPath, records }] of chunks.entries()) {
      const source = sources[index];
      const frames = editedFrames(source.fd, sourcePath, records);
      if (frames.length > 0) copies.push({ sourcePath, tempPath, source, size: (await source.stat()).size, frames });
    }
    const copying = startCopies(copies, made);
    const hashing = redactedHashes(copies);
    hashing.catch(() => undefined);
    await copying;
    for (const copy of copies) writeIntoCopy(copy, copy.frames);
    const heard = whileHashing?.(copies.map(({ tempPath }) => tempPath));
    heard?.catch(() => undefined);
    const digests = await hashing;
    await heard;
    copies.forEach((copy, index) => writeIntoCopy(copy, [{ fileOffset: copy.size - CHUNK_HASH_BYTES, bytes: digests[index] }]));
    return chunks.map(({ tempPath }) => copies.find((copy) => copy.tempPath === tempPath)?.frames.length ?? 0);
  } catch (error) {
    await Promise.all(made.map((path) => unlink(path).catch(() => undefined)));
    throw error;
  } finally {
    await Promise.all(sources.map((source) => source.close()));
  }
}

/** Files the kernel copies at once: each copy holds a thread of the pool, and the hashing's reads need the others. */
const COPIES_AT_ONCE = 2;

/**
 * The kernel copies each file on a thread of the pool (a file system that clones files shares
 * the blocks instead), two at a time. A failed copy leaves no file (libuv removes what it
 * created), and an existing one is not ours to delete: `made` lists only the copies this call
 * created.
 */
async function startCopies(copies: readonly ChunkCopy[], made: string[]): Promise<void> {
  const queue = [...copies];
  const copyNext = async (): Promise<void> => {
    for (let copy = queue.shift(); copy; copy = queue.shift()) {
      await copyFile(copy.sourcePath, copy.tempPath, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
      made.push(copy.tempPath);
    }
  };
  const results = await Promise.allSettled(Array.from({ length: COPIES_AT_ONCE }, copyNext));
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The redacted copy of one chunk (writeRedactedCopies with one chunk). */
export async function writeRedactedCopy(sourcePath: string, tempPath: string, records: readonly RecordToRedact[]): Promise<number> {
  return (await writeRedactedCopies([{ sourcePath, tempPath, records }]))[0];
}
