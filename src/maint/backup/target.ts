/**
 * Where a full backup writes: a folder (every file durable under its own name) or an archive
 * (archive-writer.ts). The full copy procedure is the same for both; only a folder can take a
 * differential backup, which needs to see and change what the destination already holds.
 */
import { join } from 'node:path';
import {
  copyFileDurably, copyIfChanged, copyPrefixDurably, writeBytesDurably, type Durability, type QuickCopy,
} from './file-copy.js';

export interface BackupTarget {
  /** Writes `bytes` as the backup's file `file` (a path relative to the backup: db/…, index/…). */
  writeBytes(file: string, bytes: Buffer | string): Promise<void>;
  /** Copies a whole file; undefined when the source vanished before it could be read. */
  copyFile(source: string, file: string): Promise<number | undefined>;
  /** Copies the first `prefixBytes` of a file, then zeroes up to `fileBytes` (an ongoing chunk). */
  copyPrefix(source: string, file: string, prefixBytes: number, fileBytes: number): Promise<number | undefined>;
  /**
   * Copies a file rewritten in place unless the backup's copy still matches it (`always`: copy it
   * anyway, but leave what a later differential needs to recognise it).
   */
  copyIfChanged(source: string, file: string, always?: boolean): Promise<QuickCopy | undefined>;
}

export class FolderTarget implements BackupTarget {
  constructor(readonly root: string, private readonly durability: Durability) {}

  path(file: string): string {
    return join(this.root, file);
  }

  writeBytes(file: string, bytes: Buffer | string): Promise<void> {
    return writeBytesDurably(this.path(file), bytes, this.durability);
  }

  copyFile(source: string, file: string): Promise<number | undefined> {
    return copyFileDurably(source, this.path(file), this.durability);
  }

  copyPrefix(source: string, file: string, prefixBytes: number, fileBytes: number): Promise<number | undefined> {
    return copyPrefixDurably(source, this.path(file), prefixBytes, fileBytes, this.durability);
  }

  copyIfChanged(source: string, file: string, always = false): Promise<QuickCopy | undefined> {
    return copyIfChanged(source, this.path(file), this.durability, always);
  }
}
