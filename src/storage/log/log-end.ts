/**
 * Where the log really ends in its ongoing chunk. A group commit fsyncs the chunk and only then
 * moves writer.chk on, without an fsync of its own (appender.ts), so after a crash of the machine
 * writer.chk may lag records that were durable and acknowledged. Records carry their length, a
 * checksum and their own log position, so the end is found by walking on from writer.chk over
 * records that are whole, sound and at the position they say.
 *
 * A write of several events is atomic to readers: its records are kept only up to the last one
 * that ends a write (the transaction-end flag, or a system record), so a write torn by the crash
 * is dropped whole. Its records must also follow one another as one write's do (the first marks
 * the beginning and its own position, the others point back to it in order): bytes left past the
 * end by an older write can look sound, and they stop the walk here unless they fall exactly into
 * place. The appender wipes what a refused write left past the data (TransactionLog.rollbackTo),
 * and the bytes of a chunk past its end are zeros from its creation, so nothing else lies there.
 */
import type { Chunk } from './chunk.js';
import { readInt64 } from './int64.js';
import { EventFlags, FRAME_BYTES, FRAME_LOG_POSITION_OFFSET, RECORD_PAYLOAD_BYTES_MAX, checkFrame, transactionPlace } from './record.js';

/** Bytes read at a time by the walk (a longer record is read whole). */
const SCAN_BLOCK_BYTES = 1024 * 1024;

/** The write being walked: where its first record lies and the index its next record must have. */
interface OpenWrite {
  start: number;
  next: number;
}

/**
 * Follows one record (at log position `position`) through the writes: the write it leaves open,
 * `null` when it ends one, or `undefined` when it does not belong where it lies. `first`: the
 * walk's first record, which may go on with a write begun before writer.chk (a replica takes a
 * leader's records in pieces that need not end with a write).
 */
function follow(buffer: Buffer, offset: number, position: number, open: OpenWrite | undefined, first: boolean): OpenWrite | null | undefined {
  const place = transactionPlace(buffer, offset);
  if (place === undefined) return open === undefined ? null : undefined;
  const { flags, transactionPosition, transactionOffset } = place;
  let write: OpenWrite;
  if ((flags & EventFlags.transactionBegin) !== 0) {
    if (open !== undefined || transactionPosition !== position || transactionOffset !== 0) return undefined;
    write = { start: position, next: 1 };
  } else if (open !== undefined) {
    if (transactionPosition !== open.start || transactionOffset !== open.next) return undefined;
    write = { start: open.start, next: open.next + 1 };
  } else {
    if (!first || transactionPosition >= position) return undefined;
    write = { start: transactionPosition, next: transactionOffset + 1 };
  }
  return (flags & EventFlags.transactionEnd) !== 0 ? null : write;
}

/**
 * The data offset the log ends at in `chunk`, walking from data offset `from` (writer.chk's):
 * the end of the last whole write of sound records, `from` when there is none.
 */
export async function soundEnd(chunk: Chunk, from: number): Promise<number> {
  const chunkStart = chunk.chunkNumber * chunk.header.chunkSize;
  // Where records may lie: a completed chunk's data, the whole of an ongoing one.
  const limit = chunk.isCompleted ? chunk.dataSize : chunk.header.chunkSize;
  let end = from;
  let at = from;
  let open: OpenWrite | undefined;
  let block = Buffer.alloc(0);
  let blockAt = from;
  const read = async (length: number) => {
    block = Buffer.alloc(length);
    blockAt = at;
    await chunk.readData(at, block);
  };
  while (at + FRAME_BYTES <= limit) {
    if (at + 4 > blockAt + block.length) await read(Math.min(SCAN_BLOCK_BYTES, limit - at));
    const framedLength = block.readUInt32LE(at - blockAt) + FRAME_BYTES;
    if (framedLength > RECORD_PAYLOAD_BYTES_MAX + FRAME_BYTES || at + framedLength > limit) break;
    if (at + framedLength > blockAt + block.length) await read(Math.max(framedLength, Math.min(SCAN_BLOCK_BYTES, limit - at)));
    const offset = at - blockAt;
    if (checkFrame(block, offset, offset + framedLength).problem !== undefined) break;
    if (readInt64(block, offset + FRAME_LOG_POSITION_OFFSET) !== chunkStart + at) break;
    const next = follow(block, offset, chunkStart + at, open, at === from);
    if (next === undefined) break;
    at += framedLength;
    open = next ?? undefined;
    if (next === null) end = at;
  }
  return end;
}
