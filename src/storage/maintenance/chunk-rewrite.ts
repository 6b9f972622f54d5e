/**
 * Rewriting chunks: a completed chunk file made of records taken from existing chunks (all of
 * them, or the ones a scavenge keeps), packed one after the other with a position map from their
 * log positions to where they now lie. The file is complete and durable when this returns;
 * switching it in is TransactionLog.replaceChunks.
 */
import { Errors } from '../../common/errors.js';
import type { ReplaceOptions, RewriteSource, RewrittenRecord } from '../log/chunk-replacement.js';
import { BufferPool } from './buffer-pool.js';
import { readInt64 } from '../log/int64.js';
import { FRAME_LOG_POSITION_OFFSET, decodeRecordHead, type RecordHead } from '../log/record.js';
import { RewrittenChunkWriter, type RewriteTarget } from './rewritten-chunk-writer.js';

export type { RewriteTarget } from './rewritten-chunk-writer.js';

/**
 * Bytes of a source chunk read at a time: the most a rewrite works on between turns of the event
 * loop, kept to about a millisecond of work for the appends waiting on those turns (see SLICE_BYTES
 * in scavenge/accumulation.ts).
 */
const SOURCE_BLOCK_BYTES = 256 * 1024;
/** Two per rewrite, for up to 4 at once (scavenge threads). */
const sourceBlocks = new BufferPool(SOURCE_BLOCK_BYTES, (bytes) => Buffer.allocUnsafeSlow(bytes), 8);

export interface RewriteOptions extends ReplaceOptions {
  /** Leave the chunks as they are when every record is kept (a scavenge that finds nothing to remove). */
  skipWhenAllKept?: boolean;
  /** See RewriteTarget.flushStepBytes. */
  flushStepBytes?: number;
  /** Awaited after each block of the source (a throttled scavenge gives way to the log's appends there). */
  betweenBlocks?: () => Promise<void>;
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

export interface RangeRewrite {
  kept: number;
  removed: number;
  /** The file's hash; none when it was not written (every record kept, and `skipWhenAllKept`). */
  digest?: Buffer;
}

/**
 * Writes the records of `source` that `keep` accepts to `path`, a block of the source at a time:
 * each frame checked against its checksum once (damage throws the coded error), its log position
 * checked against where it lies, and the runs kept copied as they are.
 */
export async function rewriteRange(
  source: RewriteSource, path: string, keep: (record: RecordHead) => boolean,
  options: Pick<RewriteOptions, 'skipWhenAllKept' | 'flushStepBytes' | 'betweenBlocks'>,
): Promise<RangeRewrite> {
  const writer = await RewrittenChunkWriter.create({
    path, header: source.header, logicalDataSize: source.logicalDataSize, flushStepBytes: options.flushStepBytes,
  });
  const counts = { kept: 0, removed: 0 };
  try {
    const rangeStart = source.header.startNumber * source.chunkSize;
    for (const chunk of source.chunks) {
      const chunkStart = chunk.chunkNumber * source.chunkSize;
      // Given back only after a whole walk: one cut short may leave a read under way into them.
      const spare = [sourceBlocks.take(), sourceBlocks.take()] as const;
      for await (const block of chunk.dataBlocks(spare)) {
        await writer.reserve(block.bytes.length);
        const { bytes } = block;
        for (let at = 0, index = block.firstIndex; at < bytes.length; index++) {
          const framed = chunk.checkBlockFrame(block, at);
          const position = chunkStart + chunk.logicalOf(index, block.physical + at);
          const recorded = readInt64(bytes, at + FRAME_LOG_POSITION_OFFSET);
          if (recorded !== position) throw Errors.storageReplacementInvalid.create(path, `the record at ${position} says it was written at ${recorded}`);
          if (keep(decodeRecordHead(bytes, at))) {
            writer.add(bytes, at, framed, position - rangeStart);
            counts.kept++;
          } else {
            counts.removed++;
          }
          at += framed;
        }
        writer.endOfSource();
        await options.betweenBlocks?.();
      }
      for (const buffer of spare) sourceBlocks.give(buffer);
    }
    if (counts.removed === 0 && options.skipWhenAllKept) {
      await writer.discard();
      return counts;
    }
    return { ...counts, digest: await writer.finish() };
  } catch (error) {
    await writer.discard();
    throw error;
  }
}

/** Writes `records` (ascending by logical offset) as a completed, mapped chunk at `target.path`; returns its hash. */
export async function writeRewrittenChunk(target: RewriteTarget, records: readonly RewrittenRecord[]): Promise<Buffer> {
  const writer = await RewrittenChunkWriter.create(target);
  try {
    for (const record of records) {
      await writer.reserve(record.frame.length);
      writer.add(record.frame, 0, record.frame.length, record.logical);
      writer.endOfSource();
    }
    return await writer.finish();
  } catch (error) {
    await writer.discard();
    throw error;
  }
}
