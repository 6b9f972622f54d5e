/**
 * `<db>/svcdb-reload.json`: the outcome of the last certificate reload of the node running on that
 * database. A signal has no reply, so `svcdb cert-reload --signal` sends SIGHUP and then reads
 * this file until it shows a reload by that process newer than the one it saw before. The node
 * replaces the file whole and durably (temp file fsynced, renamed, directory fsynced), so a
 * reader sees one outcome or the next, never a mix of both, even after a crash. The node writes
 * it and the cert-reload command reads it: one format, kept here beneath both.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RELOAD_STATUS_FILE_NAME } from '../layout.js';
import { replaceFileDurably } from './durable-file.js';

export type ReloadTrigger = 'http' | 'signal';

export interface ReloadStatus {
  /** The node process that reloaded; sequence numbers start again with every process. */
  pid: number;
  /** 1 for the process's first reload, one more for each after it. */
  sequence: number;
  /** When the reload finished, ISO 8601. */
  time: string;
  trigger: ReloadTrigger;
  ok: boolean;
  /** What a successful reload did: new certificates in service, or none configured. */
  result?: 'reloaded' | 'nothing to reload';
  /** Why a failed reload failed; the certificates in service stayed as they were. */
  error?: { code: string; message: string };
}

export function reloadStatusPath(dbPath: string): string {
  return join(dbPath, RELOAD_STATUS_FILE_NAME);
}

export function writeReloadStatus(dbPath: string, status: ReloadStatus): Promise<void> {
  return replaceFileDurably(reloadStatusPath(dbPath), `${JSON.stringify(status)}\n`);
}

/** The last recorded outcome; undefined when there is none that can be read. */
export async function readReloadStatus(dbPath: string): Promise<ReloadStatus | undefined> {
  let text: string;
  try {
    text = await readFile(reloadStatusPath(dbPath), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const status = JSON.parse(text) as Partial<ReloadStatus>;
    const complete = Number.isSafeInteger(status.pid) && Number.isSafeInteger(status.sequence) && typeof status.ok === 'boolean';
    return complete ? (status as ReloadStatus) : undefined;
  } catch {
    return undefined;
  }
}
