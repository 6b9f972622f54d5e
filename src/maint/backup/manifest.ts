/**
 * `svcdb-backup.json`, the first file of every backup: the node the files came from and whether
 * the backup that wrote them finished. A backup writes it as "in-progress" before it copies
 * anything and as "complete" after every file and directory is durable, so an interrupted backup
 * is recognised (restore refuses it; the next backup into the folder finishes the job).
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Errors } from '../../common/errors.js';
import { LOCK_FILE_NAME } from '../../storage/lock.js';
import { MANIFEST_FILE } from './layout.js';

export const MANIFEST_FORMAT = 1;

export type BackupKind = 'full' | 'differential';
export type BackupStatus = 'in-progress' | 'complete';

export interface BackupManifest {
  format: number;
  /** The node identity of the source (node-identity.ts). */
  nodeId: string;
  status: BackupStatus;
  /** How the last backup into this destination was taken. */
  kind: BackupKind;
  startedAt: string;
  finishedAt?: string;
  /** The data directories the files came from, for the operator's information. */
  source: { db: string; index: string };
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
  if (!manifest) throw Errors.backupNotABackup.create(where, `it has no ${MANIFEST_FILE}`);
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
  // The destination lock (and a stale one it replaced) is ours: it is taken before this check.
  const others = entries.filter((name) => !name.startsWith(LOCK_FILE_NAME));
  if (others.length > 0) {
    throw Errors.backupNotABackup.create(folder, `it is not empty and has no ${MANIFEST_FILE}; choose an empty or new destination`);
  }
  return undefined;
}
