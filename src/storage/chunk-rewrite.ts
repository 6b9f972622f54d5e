/**
 * Writing a rewritten chunk: a completed chunk file made of records taken from existing chunks
 * (all of them, or the ones a scavenge keeps, or copies a redaction changed), packed one after
 * the other with a position map from their log positions to where they now lie. The file is
 * complete and durable when this returns; switching it in is TransactionLog.replaceChunks.
 */
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { Errors } from '../common/errors.js';
import { md5OfShared } from '../common/md5-thread.js';
import {
  CHUNK_FOOTER_BYTES, FOOTER_HASHED_BYTES, completedFileBytes, encodeChunkFooter, encodeChunkHeader,
  setFooterHash, type ChunkHeader,
} from './chunk-format.js';
import { storageError, writeFully } from './file-write.js';
import { PositionMap, type MappedRecord } from './position-map.js';
import type { ReplaceOptions } from './chunk-replacement.js';

export interface RewriteOptions extends ReplaceOptions {
  /** Leave the chunks as they are when every record is kept (a scavenge that finds nothing to remove). */
  skipWhenAllKept?: boolean;
}

/** What a rewrite of a range of chunks did. */
export interface RewriteResult {
  rewritten: boolean;
  recordsKept: number;
  recordsRemoved: number;
  /** Bytes of the files replaced, and of the file that replaced them (the same when not rewritten). */
  fileBytesBefore: number;
  fileBytesAfter: number;
}

/** The footer's hash: the file's last bytes, the only ones not hashed. */
const HASH_BYTES = CHUNK_FOOTER_BYTES - FOOTER_HASHED_BYTES;

export interface RewrittenRecord {
  /** The record's offset in the new chunk's logical space (its log position − the chunk's start). */
  logical: number;
  /** The whole frame, length prefix and suffix included. */
  frame: Buffer;
}

export interface RewriteTarget {
  path: string;
  header: ChunkHeader;
  /** The logical size of the chunk's data: where its last original record ended. */
  logicalDataSize: number;
}

/**
 * Writes `records` (ascending by logical offset) as a completed, mapped chunk at `target.path`.
 * The file is laid out once in shared memory; the hashing thread hashes it while it is written
 * and made durable, and the footer's hash is written and synced last. Returns the bytes written,
 * for a check that the file holds them.
 */
export async function writeRewrittenChunk(target: RewriteTarget, records: readonly RewrittenRecord[]): Promise<Buffer> {
  const contents = layOut(target, records);
  const hashedEnd = contents.length - HASH_BYTES;
  const hashing = md5OfShared(contents.subarray(0, hashedEnd));
  // A failed write must not leave the hash unobserved.
  hashing.catch(() => undefined);
  const handle = await open(target.path, 'wx').catch((error: unknown) => {
    throw storageError(target.path, 'create', error);
  });
  try {
    await writeFully(handle, contents, 0, hashedEnd, 0, target.path);
    await syncFile(handle, target.path);
    setFooterHash(contents.subarray(contents.length - CHUNK_FOOTER_BYTES), await hashing);
    await writeFully(handle, contents, hashedEnd, HASH_BYTES, hashedEnd, target.path);
    await syncFile(handle, target.path);
  } catch (error) {
    await handle.close();
    await unlink(target.path).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return contents;
}

/** The whole file in a SharedArrayBuffer, its footer's hash left to fill in. */
function layOut(target: RewriteTarget, records: readonly RewrittenRecord[]): Buffer {
  const entries: MappedRecord[] = [];
  let physical = 0;
  for (const record of records) {
    entries.push({ logical: record.logical, physical });
    physical += record.frame.length;
  }
  const map = PositionMap.fromEntries(entries).encode();
  const fileBytes = completedFileBytes(physical, map.length);
  // Zeroed: the padding between the map and the footer is zeros.
  const contents = Buffer.from(new SharedArrayBuffer(fileBytes));
  let at = encodeChunkHeader({ ...target.header, isScavenged: true }).copy(contents, 0);
  for (const record of records) at += record.frame.copy(contents, at);
  map.copy(contents, at);
  const footer = encodeChunkFooter({ isCompleted: true, physicalDataSize: physical, logicalDataSize: target.logicalDataSize, mapSize: map.length });
  footer.copy(contents, fileBytes - CHUNK_FOOTER_BYTES);
  return contents;
}

async function syncFile(handle: FileHandle, path: string): Promise<void> {
  try {
    await handle.sync();
  } catch (error) {
    throw Errors.storageIo.create(path, 'fsync', String(error));
  }
}
