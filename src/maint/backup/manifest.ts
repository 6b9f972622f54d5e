/**
 * `svcdb-backup.json`, the first file of every backup: the node the files came from, the last
 * backup that finished writing the folder (its generation and checkpoints), and the backup that
 * is writing it now or was interrupted (`running`).
 *
 * A backup into a folder rewrites it (atomically, fsynced) before it changes anything else, with
 * `running` set, and again once every file and directory is durable, with the new generation and
 * without `running`. A folder whose first backup never finished says "in-progress": restore and
 * verify refuse it. A folder that held a complete backup stays "complete" while a later backup
 * writes it: target.ts keeps it restorable at every step, and verify tells from chaser.chk whether
 * an interrupted run had committed the new log yet. The next backup into the folder finishes the job.
 */
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Errors } from '../../common/errors.js';
import { LOCK_FILE_NAME } from '../../storage/layout.js';
import { MANIFEST_FILE } from './layout.js';
import { isManifestTemp } from './leftovers.js';

export const MANIFEST_FORMAT = 1;

export type BackupKind = 'full' | 'differential';
export type BackupStatus = 'in-progress' | 'complete';

/** A backup that began writing a folder and has not finished: running now, or interrupted. */
export interface RunningBackup {
  kind: BackupKind;
  startedAt: string;
  /** The generation it will be once it finishes. */
  generation: number;
  /**
   * The folder's chaser.chk when the run began (-1 if it had none). With `checkpoints` absent (a
   * manifest of an earlier version), a chaser.chk past it means the run had written its new log
   * (target.ts commits chaser.chk last).
   */
  fromChaser: number;
}

export interface BackupManifest {
  format: number;
  /** The node identity of the source (node-identity.ts). */
  nodeId: string;
  /** "complete" once a backup into the folder finished; it stays so while later ones run. */
  status: BackupStatus;
  /** How the last complete backup was taken (while "in-progress": the first one, running). */
  kind: BackupKind;
  startedAt: string;
  finishedAt?: string;
  /** How many backups finished writing this folder, the last one included (absent before format 1 had it). */
  generation?: number;
  /** The database checkpoints the last complete backup holds. */
  checkpoints?: Partial<Record<string, number>>;
  running?: RunningBackup;
  /** The data directories the files came from, for the operator's information. */
  source: { db: string; index: string };
}

/** What a backup run knows of itself when it writes the manifest. */
export interface ManifestRun {
  nodeId: string;
  kind: BackupKind;
  startedAt: Date;
  source: { db: string; index: string };
  /** The folder's chaser.chk value as the run found it, -1 if none. */
  fromChaser: number;
}

/**
 * The manifest a backup writes before it changes the folder: the complete backup the folder holds
 * (if any), with this run as `running`; an interrupted run's place is taken by this one.
 */
export function startedManifest(previous: BackupManifest | undefined, run: ManifestRun): BackupManifest {
  const { kind, fromChaser } = run;
  const startedAt = run.startedAt.toISOString();
  if (previous?.status === 'complete') {
    return { ...previous, source: run.source, running: { kind, startedAt, generation: (previous.generation ?? 1) + 1, fromChaser } };
  }
  return {
    format: MANIFEST_FORMAT, nodeId: run.nodeId, status: 'in-progress', kind, startedAt, source: run.source,
    running: { kind, startedAt, generation: 1, fromChaser },
  };
}

/** The manifest a backup writes once every file it wrote is durable. */
export function completedManifest(started: BackupManifest, run: ManifestRun, checkpoints: Partial<Record<string, number>>): BackupManifest {
  return {
    format: MANIFEST_FORMAT, nodeId: run.nodeId, status: 'complete', kind: run.kind, startedAt: run.startedAt.toISOString(),
    finishedAt: new Date().toISOString(), generation: started.running?.generation ?? 1, checkpoints, source: run.source,
  };
}

export function encodeManifest(manifest: BackupManifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

export function decodeManifest(text: string, where: string): BackupManifest {
  let value: Partial<BackupManifest>;
  try {
    value = JSON.parse(text) as Partial<BackupManifest>;
  } catch {
    throw Errors.backupNotABackup.create(where, `${MANIFEST_FILE} is not JSON`);
  }
  if (value.format !== MANIFEST_FORMAT) {
    throw Errors.backupNotABackup.create(where, `${MANIFEST_FILE} has format ${String(value.format)}, this svcdb reads format ${MANIFEST_FORMAT}`);
  }
  if (typeof value.nodeId !== 'string' || (value.status !== 'in-progress' && value.status !== 'complete')) {
    throw Errors.backupNotABackup.create(where, `${MANIFEST_FILE} lacks a node id or a status`);
  }
  return value as BackupManifest;
}

/** The manifest of a backup folder; undefined when the folder has none. */
export async function readManifest(folder: string): Promise<BackupManifest | undefined> {
  let text: string;
  try {
    text = await readFile(join(folder, MANIFEST_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return decodeManifest(text, folder);
}

/** A backup that restore and verify may use: it exists and it finished. */
export function checkComplete(manifest: BackupManifest | undefined, where: string): BackupManifest {
  if (!manifest) {
    // Most often a mistyped path: say so rather than call it "not a backup".
    if (!existsSync(where)) throw Errors.optionInvalid.create('SOURCE', `${where} does not exist (no such file or directory); check the path of the backup folder or archive`);
    throw Errors.backupNotABackup.create(where, `it has no ${MANIFEST_FILE}`);
  }
  if (manifest.status !== 'complete') throw Errors.backupIncomplete.create(where);
  return manifest;
}

/**
 * Whether a backup of `nodeId` may be written into `folder`: it is empty (or missing), or it
 * holds a backup of the same node. Another node's backup, or files that are no backup at all,
 * are never overwritten.
 */
export async function checkDestinationFolder(folder: string, nodeId: string): Promise<BackupManifest | undefined> {
  const manifest = await readManifest(folder);
  if (manifest) {
    if (manifest.nodeId !== nodeId) throw Errors.backupOtherNode.create(folder, manifest.nodeId, nodeId);
    return manifest;
  }
  let entries: string[];
  try {
    entries = await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  // The destination lock (and a stale one it replaced) is ours: it is taken before this check. A
  // manifest temp file is what a first backup killed while it wrote the manifest left.
  const others = entries.filter((name) => !name.startsWith(LOCK_FILE_NAME) && !isManifestTemp(name));
  if (others.length > 0) {
    throw Errors.backupNotABackup.create(folder, `it is not empty and has no ${MANIFEST_FILE}; choose an empty or new destination`);
  }
  return undefined;
}
