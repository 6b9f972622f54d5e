/**
 * Asks a node on this machine to reload its certificates with SIGHUP. The node's pid is in
 * `<db>/svcdb.lock`; a signal has no reply, so the outcome is read from `<db>/svcdb-reload.json`,
 * which the node replaces after every reload: the command waits (bounded) until it shows a
 * reload by that process newer than the one recorded before the signal was sent.
 */
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Errors, reviveError } from '../../common/errors.js';
import { readReloadStatus, reloadStatusPath, type ReloadStatus } from '../../storage/disk/reload-status.js';
import { lockOwnerPid } from '../../storage/disk/lock.js';
import { LOCK_FILE_NAME } from '../../storage/layout.js';
import type { CertReloadResult } from './result.js';

export interface SignalReloadOptions {
  dbPath: string;
  timeoutMs: number;
}

/** How often the outcome file is read while waiting; a reload takes a few milliseconds. */
const STATUS_POLL_MS = 25;

export async function reloadBySignal(options: SignalReloadOptions): Promise<CertReloadResult> {
  const pid = lockOwnerPid(options.dbPath);
  if (pid === undefined) throw Errors.clientNodeNotRunning.create(join(options.dbPath, LOCK_FILE_NAME));
  const before = await readReloadStatus(options.dbPath);
  const seen = before?.pid === pid ? before.sequence : 0;
  try {
    process.kill(pid, 'SIGHUP');
  } catch (error) {
    throw Errors.clientSignalFailed.create(pid, (error as NodeJS.ErrnoException).code ?? String(error));
  }
  const status = await waitForReload(options, pid, seen);
  if (status.ok) return { via: 'signal', pid, result: status.result, sequence: status.sequence };
  const code = status.error?.code ?? '';
  const message = status.error?.message ?? 'the reload failed';
  throw reviveError(code, message, { pid, sequence: status.sequence })
    ?? Errors.clientUnexpectedReply.create(`process ${pid}`, `recorded a failed reload with an unknown code (${code}: ${message})`);
}

async function waitForReload(options: SignalReloadOptions, pid: number, seen: number): Promise<ReloadStatus> {
  const deadline = performance.now() + options.timeoutMs;
  for (;;) {
    const status = await readReloadStatus(options.dbPath);
    if (status?.pid === pid && status.sequence > seen) return status;
    if (performance.now() >= deadline) {
      throw Errors.clientTimeout.create(`process ${pid}`, options.timeoutMs / 1000,
        `it did not record a reload in ${reloadStatusPath(options.dbPath)}; check the node's log for "reload requested"`);
    }
    await delay(STATUS_POLL_MS);
  }
}
