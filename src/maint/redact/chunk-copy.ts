/**
 * The redactor's copy of a chunk: the chunk file copied block by block to a `.tmp` file in the
 * database directory, with the listed event records redacted on the way (redaction.ts) and the
 * MD5 in the footer recomputed over the edited bytes, then fsynced. One read and one write of
 * the file, nothing decoded but the edited records.
 */
import { createHash } from 'node:crypto';
import { open, unlink, type FileHandle } from 'node:fs/promises';
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

async function readExactly(handle: FileHandle, length: number, position: number, path: string): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  if (bytesRead !== length) throw Errors.storageCorrupt.create(path, position, 'the record runs past the end of the file');
  return buffer;
}

/** Reads and redacts each record, checking it is the event the node said lies there. */
async function editedFrames(source: FileHandle, sourcePath: string, records: readonly RecordToRedact[]): Promise<EditedFrame[]> {
  const edited: EditedFrame[] = [];
  for (const { event, fileOffset } of records) {
    const length = (await readExactly(source, 4, fileOffset, sourcePath)).readUInt32LE(0) + 8;
    const bytes = await readExactly(source, length, fileOffset, sourcePath);
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
 * Copies the hashed part of `source` to `target` block by block, overlaying `frames` and hashing
 * what it writes; the next block is read while this one is hashed and written.
 */
async function copyHashed(source: FileHandle, sourcePath: string, target: FileHandle, hashedEnd: number, frames: readonly EditedFrame[]): Promise<Buffer> {
  const hash = createHash('md5');
  const blocks = [Buffer.allocUnsafe(BLOCK_BYTES), Buffer.allocUnsafe(BLOCK_BYTES)];
  const lengthAt = (position: number) => Math.min(BLOCK_BYTES, hashedEnd - position);
  let next = hashedEnd > 0 ? readBlock(source, blocks[0], lengthAt(0), 0, sourcePath) : undefined;
  for (let position = 0, index = 0; next; position += BLOCK_BYTES, index ^= 1) {
    const block = await next;
    const length = lengthAt(position);
    const following = position + BLOCK_BYTES;
    next = following < hashedEnd ? readBlock(source, blocks[index ^ 1], lengthAt(following), following, sourcePath) : undefined;
    // A failed write must not leave the read in flight unobserved.
    next?.catch(() => undefined);
    overlay(block, length, position, frames);
    hash.update(block.subarray(0, length));
    await target.write(block, 0, length, position);
  }
  return hash.digest();
}

/**
 * Writes a redacted copy of `sourcePath` to `tempPath` (which must not exist). Returns how many
 * records it changed: 0 when every one was redacted already (the copy is then not made). The
 * copy is fsynced unless `durable` is false: the caller then syncs it (syncCopy) before the
 * switch, which lets the disk write it back while the next chunk is copied.
 */
export async function writeRedactedCopy(sourcePath: string, tempPath: string, records: readonly RecordToRedact[], durable = true): Promise<number> {
  const source = await open(sourcePath, 'r');
  let target: FileHandle | undefined;
  try {
    const frames = await editedFrames(source, sourcePath, records);
    if (frames.length === 0) return 0;
    target = await open(tempPath, 'wx', 0o600);
    const hashedEnd = (await source.stat()).size - HASH_BYTES;
    const digest = await copyHashed(source, sourcePath, target, hashedEnd, frames);
    await target.write(digest, 0, HASH_BYTES, hashedEnd);
    if (durable) await target.sync();
    return frames.length;
  } catch (error) {
    if (target) await unlink(tempPath).catch(() => undefined);
    throw error;
  } finally {
    await target?.close();
    await source.close();
  }
}

/** Makes a copy written with `durable` false durable. */
export async function syncCopy(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
