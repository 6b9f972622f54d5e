/**
 * Copying a file's bytes while keeping its holes. A node's directories are mostly holes: the
 * active chunk is preallocated to its full size and the existence filter is a large file of
 * which little is written. A plain copy (cp without --sparse, copy_file_range on most file
 * systems) writes those holes out as zeroes, so a node using a few hundred kilobytes would give a
 * backup of hundreds of megabytes, and a restore of more.
 *
 * Node has no lseek(SEEK_DATA), so holes are found the way `cp --sparse=always` finds them: a
 * run of zeroes the size of a file-system block is not written, and the file is given its full
 * length at the end. Reading a hole costs no disk access (the kernel hands back zero pages), and
 * a zero block in the data reads back the same as a hole.
 */
import type { FileHandle } from 'node:fs/promises';
import { writeFully } from '../../storage/disk/file-write.js';

/** What is read at once. */
const COPY_BLOCK_BYTES = 4 * 1024 * 1024;
/** The unit of a hole: a file-system block on the file systems a node runs on. */
const HOLE_BYTES = 4096;
const ZEROES = Buffer.alloc(HOLE_BYTES);

export interface SparseCopy {
  /** Bytes read from the source. */
  bytesRead: number;
  /** Bytes written to the copy: what is left when the zero blocks are taken out. */
  bytesWritten: number;
}

function isZeroBlock(block: Buffer, start: number): boolean {
  return block.compare(ZEROES, 0, HOLE_BYTES, start, start + HOLE_BYTES) === 0;
}

/** Writes `block[0, length)` at `position`, leaving out the whole zero blocks. Returns the bytes written. */
async function writeWithHoles(output: FileHandle, block: Buffer, length: number, position: number, target: string): Promise<number> {
  let written = 0;
  let runStart = -1;
  const flush = async (end: number) => {
    if (runStart < 0) return;
    await writeFully(output, block, runStart, end - runStart, position + runStart, target);
    written += end - runStart;
    runStart = -1;
  };
  for (let start = 0; start < length; start += HOLE_BYTES) {
    const end = Math.min(start + HOLE_BYTES, length);
    if (end - start === HOLE_BYTES && isZeroBlock(block, start)) await flush(start);
    else if (runStart < 0) runStart = start;
  }
  await flush(length);
  return written;
}

/**
 * Copies `length` bytes from the start of `input` into `output` (a new, empty file), holes kept,
 * and makes the copy `fileBytes` long. `onShortRead` says why the source ended early.
 */
export async function copySparse(
  input: FileHandle, output: FileHandle, length: number, fileBytes: number, target: string, onShortRead: (position: number) => Error,
): Promise<SparseCopy> {
  const block = Buffer.allocUnsafe(Math.min(COPY_BLOCK_BYTES, Math.max(length, HOLE_BYTES)));
  const copy: SparseCopy = { bytesRead: 0, bytesWritten: 0 };
  while (copy.bytesRead < length) {
    const want = Math.min(block.length, length - copy.bytesRead);
    const { bytesRead } = await input.read(block, 0, want, copy.bytesRead);
    if (bytesRead === 0) throw onShortRead(copy.bytesRead);
    copy.bytesWritten += await writeWithHoles(output, block, bytesRead, copy.bytesRead, target);
    copy.bytesRead += bytesRead;
  }
  // The holes at the end, and the zero-filled rest of a preallocated file, are the length alone.
  await output.truncate(fileBytes);
  return copy;
}

/**
 * A new file written from a stream of bytes (an archive entry), holes kept: the bytes are
 * gathered into whole blocks so that zero blocks are found wherever the stream's pieces end.
 */
export class SparseWriter {
  private readonly block = Buffer.allocUnsafe(COPY_BLOCK_BYTES);
  private filled = 0;
  /** Where in the file the gathered block starts. */
  private position = 0;

  constructor(private readonly output: FileHandle, private readonly target: string) {}

  async write(data: Uint8Array): Promise<void> {
    for (let offset = 0; offset < data.length;) {
      const taken = Math.min(data.length - offset, this.block.length - this.filled);
      this.block.set(data.subarray(offset, offset + taken), this.filled);
      this.filled += taken;
      offset += taken;
      if (this.filled === this.block.length) await this.flush();
    }
  }

  /** Writes what is gathered and gives the file its length; returns that length. */
  async end(): Promise<number> {
    await this.flush();
    await this.output.truncate(this.position);
    return this.position;
  }

  private async flush(): Promise<void> {
    await writeWithHoles(this.output, this.block, this.filled, this.position, this.target);
    this.position += this.filled;
    this.filled = 0;
  }
}
