/**
 * `svcdb backup`: a full or differential file-copy backup of a node, running or stopped, into a
 * folder, or a full one into an archive. The steps are the reference's (full-backup.ts,
 * differential-index.ts, differential-log.ts); this module checks the preconditions around them:
 *
 * - the source is a node's data directories (source.ts);
 * - no scavenge runs, before and after the copy (scavenge-state.ts);
 * - the destination is empty or holds this node's backup (node-identity.ts, manifest.ts);
 * - one backup at a time writes a destination folder (its own svcdb.lock, storage/lock.ts);
 * - the manifest names the run before the folder changes, and its new generation once every file
 *   and directory is durable (manifest.ts);
 * - the folder holds a restorable backup at every step (target.ts): the checkpoints are committed
 *   after the files they speak for, and what the new backup no longer needs is deleted only after;
 * - what interrupted runs left (temp files, a stale lock) is deleted first (leftovers.ts,
 *   archive-temp.ts).
 *
 * The node's lock is not taken: a running node keeps it and keeps writing while its files are read.
 */
import { mkdir, readdir, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { Errors } from '../../common/errors.js';
import { CheckpointName, isChunkFile } from '../../storage/layout.js';
import { DatabaseLock, lockOwnerPid } from '../../storage/disk/lock.js';
import { isArchive, readArchiveManifest } from './archive-reader.js';
import { removeStaleArchiveTemps } from './archive-temp.js';
import { ArchiveTarget } from './archive-writer.js';
import { CHASER_WAIT_MS_DEFAULT, waitForChaser } from './chaser-wait.js';
import { differentialIndexPart } from './differential-index.js';
import { differentialLogPart } from './differential-log.js';
import { backupBytesEstimate } from './estimate.js';
import { Durability, ioError, removeFile, replaceFileNow } from './file-copy.js';
import { dbPath, fullCopy, indexPath, type CopyContext } from './full-backup.js';
import { listIndexDataFiles } from './index-source.js';
import { BACKUP_DB_DIRECTORY, BACKUP_INDEX_DIRECTORY, MANIFEST_FILE, isOldChunkFile } from './layout.js';
import { removeLeftovers } from './leftovers.js';
import {
  checkDestinationFolder, completedManifest, encodeManifest, startedManifest, type BackupKind, type BackupManifest,
  MANIFEST_FORMAT, type ManifestRun, type RunningBackup,
} from './manifest.js';
import { nodeIdentity } from '../../storage/disk/node-identity.js';
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
  /**
   * Hears of every change to the destination once it is made (a file put in place or deleted, the
   * manifest rewritten, an archive entry written). Tests stop the process there to kill it at a
   * chosen step.
   */
  onChange?: (change: string) => void;
}

export interface BackupResult {
  kind: BackupKind;
  /** The folder, or the archive file. */
  destination: string;
  archive: boolean;
  /** False when the backup was taken with --no-sync. */
  synced: boolean;
  nodeId: string;
  /** How many backups finished writing the folder, this one included (1 for an archive). */
  generation: number;
  /** The backup into the folder that this one found interrupted, and finished in its place. */
  completedInterrupted?: RunningBackup;
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
  generation: number;
  completedInterrupted?: RunningBackup;
}

/** What a copy into a folder found: its outcome, and the files of the backup the node no longer has. */
interface FolderCopy {
  checkpoints: Partial<Record<string, number>>;
  indexCommitPosition: number;
  chunkFiles: number;
  /** Paths relative to the folder, deleted once the new backup is committed. */
  stale: string[];
}

export async function backup(request: BackupRequest): Promise<BackupResult> {
  checkArguments(request);
  const source = await checkDataDirectories(request);
  const destination = resolve(request.archive ?? request.destination ?? '');
  checkDestinationOutside(destination, source);
  const scavengeBefore = checkNoScavengeRunning(source);
  const run: Run = {
    request, source, destination,
    nodeId: await nodeIdentity(source.db, ioError),
    kind: request.differential ? 'differential' : 'full',
    startedAt: new Date(),
    writerAtStart: (await readCheckpoint(source.db, CheckpointName.writer)) ?? 0,
    tally: new Tally(request.onProgress),
    warnings: [],
    durability: new Durability(request.sync ?? true, request.onChange),
  };
  run.tally.expect(await backupBytesEstimate(source));
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

async function manifestRun(run: Run): Promise<ManifestRun> {
  return {
    nodeId: run.nodeId, kind: run.kind, startedAt: run.startedAt, source: { db: run.source.db, index: run.source.index },
    fromChaser: (await readCheckpoint(join(run.destination, BACKUP_DB_DIRECTORY), CheckpointName.chaser)) ?? -1,
  };
}

async function writeManifest(run: Run, manifest: BackupManifest): Promise<void> {
  const path = join(run.destination, MANIFEST_FILE);
  await replaceFileNow(path, encodeManifest(manifest));
  run.durability.report(`wrote ${path} (${manifest.running ? `running generation ${manifest.running.generation}` : `generation ${manifest.generation}`})`);
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

/** A folder backup goes into a folder: an existing file there is refused before anything is written. */
async function checkDestinationNotAFile(destination: string): Promise<void> {
  const found = await stat(destination).catch(() => undefined);
  if (found && !found.isDirectory()) {
    throw Errors.backupNotABackup.create(destination, 'it is a file, not a folder; choose an empty or new folder as the destination');
  }
}

async function folderBackup(run: Run, beforeComplete: () => void): Promise<Copied> {
  const { destination, durability, tally } = run;
  await checkDestinationNotAFile(destination);
  await mkdir(destination, { recursive: true });
  const lock = lockDestination(destination);
  try {
    const previous = await checkDestinationFolder(destination, run.nodeId);
    for (const file of await removeLeftovers(destination, durability)) tally.removed(file);
    const interrupted = previous?.running;
    if (interrupted) {
      run.warnings.push(`the ${interrupted.kind} backup into ${destination} started at ${interrupted.startedAt} was interrupted; this backup finishes its work`);
    }
    const started = startedManifest(previous, await manifestRun(run));
    await writeManifest(run, started);
    const target = new FolderTarget(destination, durability);
    const copied = run.kind === 'differential' ? await differentialInto(run, target) : await fullInto(run, target);
    beforeComplete();
    await target.commitCheckpoints();
    tally.phase('cleanup');
    for (const file of copied.stale) {
      if (await removeFile(target.path(file), durability)) tally.removed(file);
    }
    await durability.syncAll();
    const completed = completedManifest(started, await manifestRun(run), copied.checkpoints);
    await writeManifest(run, completed);
    return { ...copied, generation: completed.generation!, ...(interrupted ? { completedInterrupted: interrupted } : {}) };
  } finally {
    lock.release();
  }
}

async function fullInto(run: Run, target: FolderTarget): Promise<FolderCopy> {
  const outcome = await fullCopy(copyContext(run), target);
  // What an earlier backup into this folder left that the node no longer has.
  const keepChunks = new Set(outcome.chunkFiles);
  const staleChunks = (await listOrEmpty(target.path(BACKUP_DB_DIRECTORY)))
    .filter((name) => (isChunkFile(name) || isOldChunkFile(name)) && !keepChunks.has(name));
  const keepIndex = new Set(outcome.indexFiles);
  const staleIndex = (await listIndexDataFiles(target.path(BACKUP_INDEX_DIRECTORY))).filter((name) => !keepIndex.has(name));
  return {
    checkpoints: outcome.checkpoints, indexCommitPosition: outcome.indexCommitPosition, chunkFiles: outcome.chunkFiles.length,
    stale: [...staleChunks.map(dbPath), ...staleIndex.map(indexPath)],
  };
}

async function differentialInto(run: Run, target: FolderTarget): Promise<FolderCopy> {
  const context = copyContext(run);
  const indexPart = await differentialIndexPart(run.source, target, run.tally);
  const logPart = await differentialLogPart(run.source, target, run.tally, () => context.beforeDatabaseCheckpoints(indexPart.commitPosition));
  return {
    checkpoints: logPart.checkpoints, indexCommitPosition: indexPart.commitPosition, chunkFiles: logPart.chunkFiles.length,
    stale: [...indexPart.stale, ...logPart.stale],
  };
}

async function archiveBackup(run: Run, beforeComplete: () => void): Promise<Copied> {
  const { destination } = run;
  if (await isArchive(destination)) {
    const existing = await readArchiveManifest(destination);
    if (existing.nodeId !== run.nodeId) throw Errors.backupOtherNode.create(destination, existing.nodeId, run.nodeId);
  }
  await mkdir(dirname(destination), { recursive: true });
  for (const name of await removeStaleArchiveTemps(destination, run.durability)) run.tally.removed(name);
  const target = await ArchiveTarget.create(destination, run.durability);
  try {
    // The archive appears under its name only when whole, so its manifest says complete from the start.
    const manifest: BackupManifest = {
      format: MANIFEST_FORMAT, nodeId: run.nodeId, status: 'complete', kind: run.kind, startedAt: run.startedAt.toISOString(),
      generation: 1, source: { db: run.source.db, index: run.source.index },
    };
    await target.writeBytes(MANIFEST_FILE, encodeManifest(manifest));
    const outcome = await fullCopy(copyContext(run), target);
    beforeComplete();
    run.tally.phase('cleanup');
    const archiveBytes = await target.finish();
    return {
      checkpoints: outcome.checkpoints, indexCommitPosition: outcome.indexCommitPosition,
      chunkFiles: outcome.chunkFiles.length, archiveBytes, generation: 1,
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

function resultOf(run: Run, copied: Copied): BackupResult {
  const tally = run.tally.result();
  return {
    kind: run.kind,
    destination: run.destination,
    archive: Boolean(run.request.archive),
    synced: run.durability.synced,
    nodeId: run.nodeId,
    generation: copied.generation,
    ...(copied.completedInterrupted ? { completedInterrupted: copied.completedInterrupted } : {}),
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
