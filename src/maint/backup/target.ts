/**
 * Where a full backup writes: a folder (every file durable under its own name) or an archive
 * (archive-writer.ts). The full copy procedure is the same for both; only a folder can take a
 * differential backup, which needs to see and change what the destination already holds.
 *
 * A folder may hold a backup already, and a backup into it can be killed at any moment. So a
 * folder target changes it in an order that leaves, at every step, the backup it held plus files
 * a restore of that backup ignores or rebuilds from:
 *
 * - every file goes in whole, under a temp name first (file-copy.ts);
 * - chunks go in in log order (`after`), so the folder never holds a chunk after a gap or after
 *   an ongoing chunk;
 * - checkpoints are held back and written last (commitCheckpoints), after every chunk and index
 *   file is in place and durable: an index checkpoint is never ahead of the file it covers, and
 *   the database checkpoints go writer.chk first and chaser.chk last. Each step keeps
 *   chaser <= writer and epoch < writer, and a restore keeps the log up to chaser.chk, so until
 *   chaser.chk is replaced a restore gives the previous backup's log, and from then on the new one.
 *
 * An archive is written under a temp name and appears whole, so it takes every file as it comes.
 */
import { join } from 'node:path';
import { CheckpointName } from '../../storage/layout.js';
import {
  copyFileDurably, copyIfChanged, copyPrefixDurably, writeBytesDurably, type Durability, type QuickCopy,
} from './file-copy.js';
import { BACKUP_DB_DIRECTORY, BACKUP_INDEX_DIRECTORY, INDEX_CHECKPOINTS } from './layout.js';

export interface BackupTarget {
  /** Writes `bytes` as the backup's file `file` (a path relative to the backup: db/…, index/…). */
  writeBytes(file: string, bytes: Buffer | string): Promise<void>;
  /** Writes a checkpoint's 8 bytes; a folder holds them back until commitCheckpoints. */
  writeCheckpoint(file: string, bytes: Buffer): Promise<void>;
  /** Writes the checkpoints held back, in the order that keeps the destination restorable. */
  commitCheckpoints(): Promise<void>;
  /**
   * Copies a whole file; undefined when the source vanished before it could be read. The copy is
   * put in place only after `after` resolved.
   */
  copyFile(source: string, file: string, after?: Promise<unknown>): Promise<number | undefined>;
  /** Copies the first `prefixBytes` of a file, then zeroes up to `fileBytes` (an ongoing chunk). */
  copyPrefix(source: string, file: string, prefixBytes: number, fileBytes: number, after?: Promise<unknown>): Promise<number | undefined>;
  /**
   * Copies a file rewritten in place unless the backup's copy still matches it (`always`: copy it
   * anyway, but leave what a later differential needs to recognise it).
   */
  copyIfChanged(source: string, file: string, always?: boolean): Promise<QuickCopy | undefined>;
}

/**
 * The order checkpoints are written into a folder: index checkpoints, then writer.chk (the end of
 * the chunks already in place), epoch.chk, proposal.chk, truncate.chk, and chaser.chk last.
 */
const CHECKPOINT_COMMIT_ORDER: readonly string[] = [
  ...INDEX_CHECKPOINTS.map((name) => `${BACKUP_INDEX_DIRECTORY}/${name}`),
  ...[CheckpointName.writer, CheckpointName.epoch, CheckpointName.proposal, CheckpointName.truncate, CheckpointName.chaser]
    .map((name) => `${BACKUP_DB_DIRECTORY}/${name}`),
];

export class FolderTarget implements BackupTarget {
  private readonly heldCheckpoints = new Map<string, Buffer>();

  constructor(readonly root: string, private readonly durability: Durability) {}

  path(file: string): string {
    return join(this.root, file);
  }

  writeBytes(file: string, bytes: Buffer | string): Promise<void> {
    return writeBytesDurably(this.path(file), bytes, this.durability);
  }

  async writeCheckpoint(file: string, bytes: Buffer): Promise<void> {
    if (!CHECKPOINT_COMMIT_ORDER.includes(file)) throw new TypeError(`${file} is not a checkpoint a backup writes`);
    this.heldCheckpoints.set(file, bytes);
  }

  async commitCheckpoints(): Promise<void> {
    // The files the checkpoints speak for reach the disk before the checkpoints do.
    await this.durability.syncAll();
    for (const file of CHECKPOINT_COMMIT_ORDER) {
      const bytes = this.heldCheckpoints.get(file);
      if (bytes !== undefined) await this.writeBytes(file, bytes);
    }
    this.heldCheckpoints.clear();
    await this.durability.syncAll();
  }

  copyFile(source: string, file: string, after?: Promise<unknown>): Promise<number | undefined> {
    return copyFileDurably(source, this.path(file), this.durability, after);
  }

  copyPrefix(source: string, file: string, prefixBytes: number, fileBytes: number, after?: Promise<unknown>): Promise<number | undefined> {
    return copyPrefixDurably(source, this.path(file), prefixBytes, fileBytes, this.durability, after);
  }

  copyIfChanged(source: string, file: string, always = false): Promise<QuickCopy | undefined> {
    return copyIfChanged(source, this.path(file), this.durability, always);
  }
}
