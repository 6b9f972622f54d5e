/**
 * `svcdb backup`: a full or differential file-copy backup of a node, running or stopped, into a
 * folder, or a full one into an archive. The steps are the reference's (full-backup.ts,
 * differential-index.ts, differential-log.ts); this module checks the preconditions around them:
 *
 * - the source is a node's data directories (source.ts);
 * - no scavenge runs, before and after the copy (scavenge-state.ts);
 * - the destination is empty or holds this node's backup (node-identity.ts, manifest.ts);
 * - one backup at a time writes a destination folder (its own svcdb.lock, storage/lock.ts);
 * - the manifest says "in-progress" until every file and directory is durable.
 *
 * The node's lock is not taken: a running node keeps it and keeps writing while its files are read.
 */
import { mkdir, readdir } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { Errors } from '../../common/errors.js';
import { CheckpointName } from '../../storage/checkpoint.js';
import { replaceFileDurably } from '../../storage/durable-file.js';
import { DatabaseLock, lockOwnerPid } from '../../storage/lock.js';
import { isArchive, readArchiveManifest } from './archive-reader.js';
import { ArchiveTarget } from './archive-writer.js';
import { CHASER_WAIT_MS_DEFAULT, waitForChaser } from './chaser-wait.js';
import { differentialIndexPart } from './differential-index.js';
import { differentialLogPart } from './differential-log.js';
import { Durability, removeFile } from './file-copy.js';
import { dbPath, fullCopy, indexPath, type CopyContext } from './full-backup.js';
import { listIndexDataFiles } from './index-source.js';
import {
  BACKUP_DB_DIRECTORY, BACKUP_INDEX_DIRECTORY, MANIFEST_FILE, isChunkFile, isOldChunkFile, isTempFile,
} from './layout.js';
import { checkDestinationFolder, encodeManifest, type BackupKind, type BackupManifest, MANIFEST_FORMAT } from './manifest.js';
import { nodeIdentity } from './node-identity.js';
import { Tally, type CopiedFile, type ProgressListener } from './progress.js';
import { checkNoScavengeRunning, checkScavengeUnchanged } from './scavenge-state.js';
import { checkDataDirectories, readCheckpoint, type DataDirectories } from './source.js';
import { FolderTarget } from './target.js';

export interface BackupRequest {
  db: string;
  index: string;
  /** A backup folder; or else `archive`. */
  destination?: string;
  /** A .tar.gz file to write a full backup into. */
  archive?: string;
  differential: boolean;
  onProgress?: ProgressListener;
  /** How long to wait for chaser.chk to cover the writes acknowledged before the start (chaser-wait.ts). */
  chaserWaitMs?: number;
  /** False for --no-sync: nothing is fsynced (file-copy.ts, Durability). */
  sync?: boolean;
}

export interface BackupResult {
  kind: BackupKind;
  /** The folder, or the archive file. */
  destination: string;
  archive: boolean;
  /** False when the backup was taken with --no-sync. */
  synced: boolean;
  nodeId: string;
  startedAt: string;
  finishedAt: string;
  /** writer.chk when the backup started: every write acknowledged before it is in the backup. */
  writerAtStart: number;
  /** The database checkpoints the backup holds; a restore keeps the log up to `chaser`. */
  checkpoints: Partial<Record<string, number>>;
  indexCommitPosition: number;
  chunkFiles: number;
  filesCopied: number;
  filesSkipped: number;
  filesRemoved: number;
  bytesCopied: number;
  /** The archive's size, for --archive. */
  archiveBytes?: number;
  copied: CopiedFile[];
  skipped: string[];
  removed: string[];
  warnings: string[];
}

interface Run {
  request: BackupRequest;
  source: DataDirectories;
  destination: string;
  nodeId: string;
  kind: BackupKind;
  startedAt: Date;
  writerAtStart: number;
  tally: Tally;
  warnings: string[];
  durability: Durability;
}

interface Copied {
  checkpoints: Partial<Record<string, number>>;
  indexCommitPosition: number;
  chunkFiles: number;
  archiveBytes?: number;
}

export async function backup(request: BackupRequest): Promise<BackupResult> {
  checkArguments(request);
  const source = await checkDataDirectories(request);
  const destination = resolve(request.archive ?? request.destination ?? '');
  checkDestinationOutside(destination, source);
  const scavengeBefore = checkNoScavengeRunning(source);
  const run: Run = {
    request, source, destination,
    nodeId: await nodeIdentity(source.db),
    kind: request.differential ? 'differential' : 'full',
    startedAt: new Date(),
    writerAtStart: (await readCheckpoint(source.db, CheckpointName.writer)) ?? 0,
    tally: new Tally(request.onProgress),
    warnings: [],
    durability: new Durability(request.sync ?? true),
  };
  // A scavenge that started, or even ran to its end, while files were copied spoils the copy.
  const beforeComplete = () => checkScavengeUnchanged(scavengeBefore, source);
  const copied = request.archive ? await archiveBackup(run, beforeComplete) : await folderBackup(run, beforeComplete);
  return resultOf(run, copied);
}

function checkArguments(request: BackupRequest): void {
  if (Boolean(request.archive) === Boolean(request.destination)) {
    throw Errors.optionInvalid.create('destination', 'give a destination folder or --archive FILE, one of the two');
  }
  if (request.archive && request.differential) {
    throw Errors.optionInvalid.create('--differential', 'an archive always holds a full backup; take differential backups into a folder');
  }
}

function checkDestinationOutside(destination: string, source: DataDirectories): void {
  for (const directory of [source.db, source.index]) {
    if (isSameOrInside(destination, directory) || isSameOrInside(directory, destination)) {
      throw Errors.optionInvalid.create('destination', `${destination} overlaps the data directory ${directory}; back up to a path outside it`);
    }
  }
}

function isSameOrInside(path: string, directory: string): boolean {
  const inside = relative(directory, path);
  return inside === '' || (inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside));
}

function manifestOf(run: Run, status: BackupManifest['status']): BackupManifest {
  return {
    format: MANIFEST_FORMAT,
    nodeId: run.nodeId,
    status,
    kind: run.kind,
    startedAt: run.startedAt.toISOString(),
    ...(status === 'complete' && !run.request.archive ? { finishedAt: new Date().toISOString() } : {}),
    source: { db: run.source.db, index: run.source.index },
  };
}

function copyContext(run: Run): CopyContext {
  return {
    source: run.source,
    tally: run.tally,
    beforeDatabaseCheckpoints: async (indexCommitPosition) => {
      const target = Math.max(run.writerAtStart, indexCommitPosition);
      const wait = await waitForChaser(run.source.db, target, run.request.chaserWaitMs ?? CHASER_WAIT_MS_DEFAULT);
      if (wait.shortfall) run.warnings.push(wait.shortfall);
    },
  };
}

async function folderBackup(run: Run, beforeComplete: () => void): Promise<Copied> {
  const { destination } = run;
  await mkdir(destination, { recursive: true });
  const lock = lockDestination(destination);
  try {
    await checkDestinationFolder(destination, run.nodeId);
    const durability = run.durability;
    await removeTempFiles(destination, durability);
    await replaceFileDurably(join(destination, MANIFEST_FILE), encodeManifest(manifestOf(run, 'in-progress')));
    const target = new FolderTarget(destination, durability);
    const copied = run.kind === 'differential'
      ? await differentialInto(run, target, durability)
      : await fullInto(run, target, durability);
    beforeComplete();
    await durability.syncAll();
    await replaceFileDurably(join(destination, MANIFEST_FILE), encodeManifest(manifestOf(run, 'complete')));
    return copied;
  } finally {
    lock.release();
  }
}

async function fullInto(run: Run, target: FolderTarget, durability: Durability): Promise<Copied> {
  const outcome = await fullCopy(copyContext(run), target);
  run.tally.phase('cleanup');
  // What an earlier backup into this folder left that the node no longer has.
  const keepChunks = new Set(outcome.chunkFiles);
  const backupDb = target.path(BACKUP_DB_DIRECTORY);
  for (const name of await listOrEmpty(backupDb)) {
    if ((isChunkFile(name) || isOldChunkFile(name)) && !keepChunks.has(name)) {
      await removeFile(join(backupDb, name), durability);
      run.tally.removed(dbPath(name));
    }
  }
  const keepIndex = new Set(outcome.indexFiles);
  const backupIndex = target.path(BACKUP_INDEX_DIRECTORY);
  for (const name of await listIndexDataFiles(backupIndex)) {
    if (keepIndex.has(name)) continue;
    await removeFile(join(backupIndex, name), durability);
    run.tally.removed(indexPath(name));
  }
  return { checkpoints: outcome.checkpoints, indexCommitPosition: outcome.indexCommitPosition, chunkFiles: outcome.chunkFiles.length };
}

async function differentialInto(run: Run, target: FolderTarget, durability: Durability): Promise<Copied> {
  const context = copyContext(run);
  const indexPart = await differentialIndexPart(run.source, target, durability, run.tally);
  const logPart = await differentialLogPart(
    run.source, target, durability, run.tally, () => context.beforeDatabaseCheckpoints(indexPart.commitPosition),
  );
  return { checkpoints: logPart.checkpoints, indexCommitPosition: indexPart.commitPosition, chunkFiles: logPart.chunkFiles.length };
}

async function archiveBackup(run: Run, beforeComplete: () => void): Promise<Copied> {
  const { destination } = run;
  if (await isArchive(destination)) {
    const existing = await readArchiveManifest(destination);
    if (existing.nodeId !== run.nodeId) throw Errors.backupOtherNode.create(destination, existing.nodeId, run.nodeId);
  }
  await mkdir(dirname(destination), { recursive: true });
  const target = ArchiveTarget.create(destination, run.durability);
  try {
    // The archive appears under its name only when whole, so its manifest says complete from the start.
    await target.writeBytes(MANIFEST_FILE, encodeManifest(manifestOf(run, 'complete')));
    const outcome = await fullCopy(copyContext(run), target);
    beforeComplete();
    run.tally.phase('cleanup');
    const archiveBytes = await target.finish();
    return {
      checkpoints: outcome.checkpoints, indexCommitPosition: outcome.indexCommitPosition,
      chunkFiles: outcome.chunkFiles.length, archiveBytes,
    };
  } catch (error) {
    await target.abort();
    throw error;
  }
}

/** One backup writes a folder at a time: the destination gets a lock of its own. */
function lockDestination(destination: string): DatabaseLock {
  try {
    return DatabaseLock.acquire(destination);
  } catch (error) {
    if (Errors.storageLocked.is(error)) {
      throw Errors.backupDestinationLocked.create(destination, String(lockOwnerPid(destination) ?? 'unknown'));
    }
    throw error;
  }
}

async function listOrEmpty(directory: string): Promise<string[]> {
  try {
    return await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Temp files an interrupted backup left in the destination's db/ and index/ trees. */
async function removeTempFiles(destination: string, durability: Durability): Promise<void> {
  for (const part of [BACKUP_DB_DIRECTORY, BACKUP_INDEX_DIRECTORY]) {
    const entries = await readdir(join(destination, part), { recursive: true, withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isFile() && isTempFile(entry.name)) await removeFile(join(entry.parentPath, entry.name), durability);
    }
  }
}

function resultOf(run: Run, copied: Copied): BackupResult {
  const tally = run.tally.result();
  return {
    kind: run.kind,
    destination: run.destination,
    archive: Boolean(run.request.archive),
    synced: run.durability.synced,
    nodeId: run.nodeId,
    startedAt: run.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    writerAtStart: run.writerAtStart,
    checkpoints: copied.checkpoints,
    indexCommitPosition: copied.indexCommitPosition,
    chunkFiles: copied.chunkFiles,
    filesCopied: tally.copied.length,
    filesSkipped: tally.skipped.length,
    filesRemoved: tally.removed.length,
    bytesCopied: tally.bytesCopied,
    ...(copied.archiveBytes === undefined ? {} : { archiveBytes: copied.archiveBytes }),
    copied: tally.copied,
    skipped: tally.skipped,
    removed: tally.removed,
    warnings: run.warnings,
  };
}
