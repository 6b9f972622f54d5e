/**
 * Writing a rewritten chunk: a completed chunk file made of records taken from existing chunks
 * (all of them, or the ones a scavenge keeps, or copies a redaction changed), packed one after
 * the other with a position map from their log positions to where they now lie. The file is
 * complete and durable when this returns; switching it in is TransactionLog.replaceChunks.
 */
import { createHash } from 'node:crypto';
import { open, unlink } from 'node:fs/promises';
import { Errors } from '../common/errors.js';
import {
  CHUNK_FOOTER_BYTES, CHUNK_HEADER_BYTES, FOOTER_HASHED_BYTES, completedFileBytes, encodeChunkFooter, encodeChunkHeader,
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
 * Returns the bytes written, for a check that the file holds them.
 */
export async function writeRewrittenChunk(target: RewriteTarget, records: readonly RewrittenRecord[]): Promise<Buffer> {
  const entries: MappedRecord[] = [];
  let physical = 0;
  for (const record of records) {
    entries.push({ logical: record.logical, physical });
    physical += record.frame.length;
  }
  const map = PositionMap.fromEntries(entries).encode();
  const header = encodeChunkHeader({ ...target.header, isScavenged: true });
  const fileBytes = completedFileBytes(physical, map.length);
  const padding = Buffer.alloc(fileBytes - CHUNK_HEADER_BYTES - physical - map.length - CHUNK_FOOTER_BYTES);
  const footer = encodeChunkFooter({ isCompleted: true, physicalDataSize: physical, logicalDataSize: target.logicalDataSize, mapSize: map.length });
  const hash = createHash('md5').update(header);
  for (const record of records) hash.update(record.frame);
  setFooterHash(footer, hash.update(map).update(padding).update(footer.subarray(0, FOOTER_HASHED_BYTES)).digest());

  const handle = await open(target.path, 'wx').catch((error: unknown) => {
    throw storageError(target.path, 'create', error);
  });
  const contents = Buffer.concat([header, ...records.map((record) => record.frame), map, padding, footer]);
  try {
    await writeFully(handle, contents, 0, contents.length, 0, target.path);
    try {
      await handle.sync();
    } catch (error) {
      throw Errors.storageIo.create(target.path, 'fsync', String(error));
    }
  } catch (error) {
    await handle.close();
    await unlink(target.path).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return contents;
}
