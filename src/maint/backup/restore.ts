/**
 * `svcdb restore`: the reference's restore, for a full or differential backup alike:
 *   (1) the node is stopped: restore takes the node's own lock (storage/lock.ts) for the whole
 *       run, so it is refused while a node runs on the target and no node can start during it;
 *   (2) every file of the backup is copied into place;
 *   (3) chaser.chk is copied to truncate.chk, overwriting the restored one.
 * At its next start the node cuts the log back to that position and rebuilds what lies above it
 * (DESIGN.md §3; storage/engine.ts applyTruncation).
 *
 * Files go in checkpoints first, then chunks from the last to the first, then the index with its
 * map last, each whole under its name (file-copy.ts). A restore cut short leaves a target that
 * cannot start (writer.chk points past the chunks present, or chunk 0 is missing) rather than one
 * that starts on part of the log; run the restore again with --force.
 *
 * A backup folder that a later, interrupted backup left behind restores as it is: it holds the
 * previous backup or the interrupted run's new log, whole either way (target.ts); `svcdb backup
 * verify` says which. A folder another backup is writing right now is refused.
 *
 * The node identity file (node-identity.ts) is not in a backup, and --force deletes the target's:
 * a restored node is a new node as far as backups are concerned.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rename, rm, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Errors } from '../../common/errors.js';
import {
  CheckpointName, INDEXMAP_FILE, IndexPath, LOCK_FILE_NAME, NODE_IDENTITY_FILE_NAME, isChunkFile, isIndexDataFile, isTempFile, sortChunkFiles,
} from '../../storage/layout.js';
import { DatabaseLock, lockOwnerPid } from '../../storage/disk/lock.js';
import { extractArchive, isArchive, readArchiveManifest } from './archive-reader.js';
import { COPY_CONCURRENCY, forEachConcurrently } from './concurrency.js';
import { Durability, copyFileDurably, exists, removeFile, replaceFileNow } from './file-copy.js';
import { BACKUP_DB_DIRECTORY, BACKUP_INDEX_DIRECTORY, FULL_DB_CHECKPOINTS, isOldChunkFile } from './layout.js';
import { checkComplete, readManifest, type BackupManifest, type RunningBackup } from './manifest.js';
import { Tally, type CopiedFile, type ProgressListener } from './progress.js';
import { readCheckpointAt } from './source.js';
import { PRIVATE_DIRECTORY_MODE } from '../../storage/disk/file-modes.js';

export interface RestoreRequest {
  /** A backup folder or archive. */
  source: string;
  db: string;
  index: string;
  /** Replace the database files in non-empty target durability. */
  force: boolean;
  onProgress?: ProgressListener;
}

export interface RestoreResult {
  source: string;
  archive: boolean;
  /** The node the backup was taken from. */
  backupNodeId: string;
  backupStartedAt: string;
  db: string;
  index: string;
  filesRestored: number;
  bytesRestored: number;
  /** Files of the target that --force deleted first. */
  removed: string[];
  /** truncate.chk as written: the next start cuts the log back to this position. */
  truncateTo: number;
  /** A backup into the folder that began after its last complete one and was interrupted. */
  interruptedBackup?: RunningBackup;
  restored: CopiedFile[];
}

/** A file of the backup and where it goes. */
interface Placement {
  from: string;
  to: string;
  file: string;
}

const SCRATCH_PREFIX = '.svcdb-restore-';

export async function restore(request: RestoreRequest): Promise<RestoreResult> {
  const source = resolve(request.source);
  const db = resolve(request.db);
  const index = resolve(request.index);
  if (db === index) throw Errors.optionInvalid.create('--index', 'the index directory must differ from --db');
  const archive = await isArchive(source);
  const manifest = archive ? await readArchiveManifest(source) : checkComplete(await readManifest(source), source);
  const writer = archive ? undefined : lockOwnerPid(source);
  if (writer !== undefined) throw Errors.backupDestinationLocked.create(source, String(writer));
  await mkdir(db, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  await mkdir(index, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  const lock = DatabaseLock.acquire(db);
  const tally = new Tally(request.onProgress);
  const durability = new Durability();
  let scratch: string | undefined;
  try {
    await prepareTarget(db, index, request.force, tally, durability);
    let folder = source;
    if (archive) {
      tally.phase('extract');
      // Inside the target's db directory: the extracted files are then renamed into place.
      scratch = join(db, `${SCRATCH_PREFIX}${randomUUID()}`);
      await mkdir(scratch);
      await extractArchive(source, scratch);
      folder = scratch;
    }
    tally.phase('restore');
    const chaser = await readCheckpointAt(join(folder, BACKUP_DB_DIRECTORY), CheckpointName.chaser);
    if (chaser === undefined) throw Errors.backupNotABackup.create(source, `it holds no ${BACKUP_DB_DIRECTORY}/${CheckpointName.chaser}`);
    // Group by group, in order; the files of one group two at a time (concurrency.ts).
    for (const group of await placementsOf(folder, db, index)) {
      await forEachConcurrently(group, COPY_CONCURRENCY, (placement) => place(placement, archive, tally, durability));
    }
    // (3)
    await replaceFileNow(join(db, CheckpointName.truncate), chaser.bytes);
    await durability.syncAll();
    return resultOf(request, source, archive, manifest, db, index, tally, chaser.value);
  } finally {
    try {
      if (scratch) await rm(scratch, { recursive: true, force: true });
    } finally {
      lock.release();
    }
  }
}

function resultOf(
  request: RestoreRequest, source: string, archive: boolean, manifest: BackupManifest, db: string, index: string,
  tally: Tally, truncateTo: number,
): RestoreResult {
  const report = tally.result();
  return {
    source, archive, backupNodeId: manifest.nodeId, backupStartedAt: manifest.startedAt, db, index,
    filesRestored: report.copied.length, bytesRestored: report.bytesCopied, removed: report.removed, truncateTo,
    ...(manifest.running ? { interruptedBackup: manifest.running } : {}),
    restored: report.copied,
  };
}

/** Refuses a non-empty target unless forced; forced, deletes the database files svcdb knows there. */
async function prepareTarget(db: string, index: string, force: boolean, tally: Tally, durability: Durability): Promise<void> {
  const dbEntries = (await readdir(db)).filter((name) => !name.startsWith(LOCK_FILE_NAME));
  const indexEntries = await readdir(index);
  if (dbEntries.length === 0 && indexEntries.length === 0) return;
  if (!force) throw Errors.restoreTargetNotEmpty.create(dbEntries.length > 0 ? db : index);
  for (const name of dbEntries) {
    const ours = isChunkFile(name) || isOldChunkFile(name) || isTempFile(name) || name === NODE_IDENTITY_FILE_NAME
      || (FULL_DB_CHECKPOINTS as readonly string[]).includes(name);
    if (ours && (await removeFile(join(db, name), durability))) tally.removed(`db/${name}`);
    if (name.startsWith(SCRATCH_PREFIX)) await rm(join(db, name), { recursive: true, force: true });
  }
  for (const name of [...(await readdir(index)).filter((entry) => isIndexDataFile(entry) || isTempFile(entry)), INDEXMAP_FILE,
    IndexPath.existenceCheckpoint, IndexPath.existenceData, IndexPath.scavengeState, `${IndexPath.scavengeState}-wal`, `${IndexPath.scavengeState}-shm`]) {
    if (await removeFile(join(index, name), durability)) tally.removed(`index/${name}`);
  }
}

/** The backup's files in restore order, in groups; only names svcdb writes are taken. */
async function placementsOf(folder: string, db: string, index: string): Promise<Placement[][]> {
  const backupDb = join(folder, BACKUP_DB_DIRECTORY);
  const backupIndex = join(folder, BACKUP_INDEX_DIRECTORY);
  const dbNames = await readdir(backupDb);
  const indexNames = await readdir(backupIndex).catch(() => [] as string[]);
  const toDb = (name: string) => ({ from: join(backupDb, name), to: join(db, name), file: `${BACKUP_DB_DIRECTORY}/${name}` });
  const toIndex = (name: string) => ({ from: join(backupIndex, name), to: join(index, name), file: `${BACKUP_INDEX_DIRECTORY}/${name}` });
  const optionalIndex = [IndexPath.existenceCheckpoint, IndexPath.existenceData, IndexPath.scavengeState];
  const presentOptional: string[] = [];
  for (const name of optionalIndex) {
    if (await exists(join(backupIndex, name))) presentOptional.push(name);
  }
  return [
    FULL_DB_CHECKPOINTS.filter((name) => dbNames.includes(name)).map(toDb),
    sortChunkFiles(dbNames).reverse().map(toDb),
    [...indexNames.filter(isIndexDataFile).sort(), ...presentOptional].map(toIndex),
    indexNames.includes(INDEXMAP_FILE) ? [toIndex(INDEXMAP_FILE)] : [],
  ];
}

/**
 * Puts one file in place. Files extracted from an archive are moved (fsynced, then renamed), the
 * files of a backup folder are copied; either way the name holds a whole file or nothing.
 */
async function place(placement: Placement, move: boolean, tally: Tally, durability: Durability): Promise<void> {
  tally.working(placement.file);
  await mkdir(dirname(placement.to), { recursive: true });
  if (move) {
    const bytes = await durability.syncFileAt(placement.from);
    try {
      await rename(placement.from, placement.to);
      durability.changed(placement.to, 'placed');
      tally.copied(placement.file, bytes);
      return;
    } catch (error) {
      // The index directory may be on another file system than the db directory.
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw Errors.backupIo.create(placement.to, 'rename into place', String(error));
    }
  }
  const bytes = await copyFileDurably(placement.from, placement.to, durability);
  if (bytes === undefined) throw Errors.backupIo.create(placement.from, 'copy', 'the file vanished from the backup');
  if (move) await unlink(placement.from);
  tally.copied(placement.file, bytes);
}
