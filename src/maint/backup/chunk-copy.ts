/**
 * Copying a chunk file while the node writes it.
 *
 * A completed chunk never changes (no scavenge runs during a backup), so it is copied whole. The
 * ongoing chunk is preallocated to its full size and written in place; it is copied up to what
 * writer.chk covers, read just before the copy (every byte below it is durable and never
 * rewritten), and the rest of its size is zeroes in the copy, as in a freshly created chunk. The
 * copy is then a well-formed ongoing chunk even if the node completed the chunk while it was
 * being read. Bytes past writer.chk were never acknowledged, and a restore cuts the log back to
 * chaser.chk, which is lower still.
 *
 * Headers and footers are read with the storage module's decoders (chunk-format.ts).
 */
import { open } from 'node:fs/promises';
import { Errors } from '../../common/errors.js';
import {
  CHUNK_FOOTER_BYTES, CHUNK_HEADER_BYTES, completedFileBytes, decodeChunkFooter, decodeChunkHeader, ongoingFileBytes,
  type ChunkFooter, type ChunkHeader,
} from '../../storage/log/chunk-format.js';
import type { BackupTarget } from './target.js';

export interface ChunkFileState {
  header: ChunkHeader;
  footer: ChunkFooter;
  sizeBytes: number;
  /** A footer that says completed, on a file cut to the size that footer gives. */
  completed: boolean;
}

/** Reads a chunk file's header and footer; undefined when the file does not exist. */
export async function readChunkState(path: string): Promise<ChunkFileState | undefined> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const sizeBytes = (await handle.stat()).size;
    if (sizeBytes < CHUNK_HEADER_BYTES + CHUNK_FOOTER_BYTES) {
      throw Errors.storageCorrupt.create(path, 0, `file of ${sizeBytes} bytes is shorter than a chunk header and footer`);
    }
    const headerBytes = Buffer.alloc(CHUNK_HEADER_BYTES);
    await handle.read(headerBytes, 0, CHUNK_HEADER_BYTES, 0);
    const header = decodeChunkHeader(headerBytes);
    if (typeof header === 'string') throw Errors.storageCorrupt.create(path, 0, header);
    const footerBytes = Buffer.alloc(CHUNK_FOOTER_BYTES);
    await handle.read(footerBytes, 0, CHUNK_FOOTER_BYTES, sizeBytes - CHUNK_FOOTER_BYTES);
    const footer = decodeChunkFooter(footerBytes);
    // A scavenged chunk holds its position map between the records and the footer.
    const completed = footer.isCompleted && sizeBytes === completedFileBytes(footer.physicalDataSize, footer.mapSize);
    return { header, footer, sizeBytes, completed };
  } finally {
    await handle.close();
  }
}

/**
 * Whether two chunk files are the same completed chunk: same chunk id in the header (a chunk made
 * anew, after a truncation or a scavenge, gets a new id) and the same hash in the footer.
 */
export function isSameCompletedChunk(source: ChunkFileState, copy: ChunkFileState): boolean {
  return source.completed && copy.completed
    && source.header.chunkId === copy.header.chunkId
    && source.sizeBytes === copy.sizeBytes
    && source.footer.hash.equals(copy.footer.hash);
}

/**
 * Copies one chunk file into the backup as `file`, put in place once `after` resolved.
 * `writerPosition` is writer.chk read just before. Returns the bytes read, or undefined when the
 * file vanished.
 */
export async function copyChunk(
  source: string, file: string, target: BackupTarget, writerPosition: number, after?: Promise<unknown>,
): Promise<number | undefined> {
  const state = await readChunkState(source);
  if (state === undefined) return undefined;
  if (state.completed) return target.copyFile(source, file, after);
  const { chunkSize, startNumber } = state.header;
  const dataEnd = Math.min(chunkSize, Math.max(0, writerPosition - startNumber * chunkSize));
  return target.copyPrefix(source, file, CHUNK_HEADER_BYTES + dataEnd, ongoingFileBytes(chunkSize), after);
}
