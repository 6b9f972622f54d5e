import type { Test } from 'tap';
import { nodeFileSystem } from '../../src/storage/disk/file-system.js';
import { installFileSystem, openWithFaults } from './faulty-disk.js';

/**
 * Fault injection for file writes, through the storage's file-system seam: every positional
 * write (writeSync, write on a descriptor, and FileHandle.write of a file opened through the
 * seam, which is all the engine writes) is counted, and the write with a chosen number fails the
 * way a filling disk fails it. Nothing else is faked: the other writes reach the real files.
 */
export type WriteFault =
  /** The write fails with ENOSPC and writes nothing. */
  | 'enospc'
  /** The write fails with EDQUOT (a quota) and writes nothing. */
  | 'edquot'
  /** The write writes half its bytes and says so; the next write fails with ENOSPC. */
  | 'short';

export interface WriteFaultPlan {
  /** The 1-based number of the write that fails; 0 never. */
  failAt: number;
  fault: WriteFault;
  /** From the failing write on, every write fails (until `freeSpace()`), as on a full disk. */
  persistent?: boolean;
}

export interface WriteInjector {
  /** Writes seen so far. */
  readonly count: number;
  /** Writes that failed (or were cut short) by injection. */
  readonly injected: number;
  /** Where each write came from: the first frame in src/, as `file:function`, and the call that wrote (`writeSync`, `write`, `FileHandle.write`). */
  readonly sites: Map<string, number>;
  arm(plan: WriteFaultPlan): void;
  /** A persistent fault stops: space has been freed. */
  freeSpace(): void;
  /** Puts the real file system back (teardown does it too). */
  restore(): void;
}

function errnoError(code: 'ENOSPC' | 'EDQUOT'): NodeJS.ErrnoException {
  const text = code === 'ENOSPC' ? 'no space left on device' : 'disk quota exceeded';
  return Object.assign(new Error(`${code}: ${text}, write`), { code, errno: code === 'ENOSPC' ? -28 : -122, syscall: 'write' });
}

function siteOf(stack: string | undefined): string {
  for (const line of (stack ?? '').split('\n').slice(2)) {
    // The shared write loop is not a site; its caller is.
    if (line.includes('/src/storage/disk/file-write.ts')) continue;
    const match = /at (?:async )?(\S+) \(.*\/src\/([^:]+)/.exec(line) ?? /at .*\/src\/([^:]+)/.exec(line);
    if (match && match.length === 3) return `${match[2]}:${match[1]}`;
    if (match) return match[1];
  }
  return 'outside src';
}

/** What the next write does: pass, write part, or fail. */
type Decision = { kind: 'pass' } | { kind: 'fail'; error: NodeJS.ErrnoException } | { kind: 'short' };

export function injectWriteFaults(t: Test): WriteInjector {
  let plan: WriteFaultPlan = { failAt: 0, fault: 'enospc' };
  let count = 0;
  let injected = 0;
  let shortPending = false;
  let full = false;
  const sites = new Map<string, number>();

  const decide = (call: 'writeSync' | 'write' | 'FileHandle.write'): Decision => {
    count++;
    const site = `${siteOf(new Error().stack)} ${call}`;
    sites.set(site, (sites.get(site) ?? 0) + 1);
    if (shortPending || full) {
      shortPending = false;
      injected++;
      return { kind: 'fail', error: errnoError('ENOSPC') };
    }
    if (plan.failAt === 0 || count !== plan.failAt) return { kind: 'pass' };
    injected++;
    if (plan.persistent) full = true;
    if (plan.fault === 'short') {
      shortPending = true;
      return { kind: 'short' };
    }
    return { kind: 'fail', error: errnoError(plan.fault === 'edquot' ? 'EDQUOT' : 'ENOSPC') };
  };
  const shortLength = (length: number) => Math.max(1, Math.floor(length / 2));

  const restore = installFileSystem(t, {
    writeSync: (fd, buffer, offset, length, position) => {
      const decision = decide('writeSync');
      if (decision.kind === 'fail') throw decision.error;
      const partial = decision.kind === 'short' && length > 1 ? shortLength(length) : length;
      return nodeFileSystem.writeSync(fd, buffer, offset, partial, position);
    },
    write: (fd, buffer, offset, length, position, callback) => {
      const decision = decide('write');
      if (decision.kind === 'fail') {
        process.nextTick(() => callback(decision.error, 0, buffer));
        return;
      }
      const partial = decision.kind === 'short' && length > 1 ? shortLength(length) : length;
      nodeFileSystem.write(fd, buffer, offset, partial, position, callback);
    },
    open: openWithFaults({
      write: (handle, buffer, offset, length, position) => {
        const decision = decide('FileHandle.write');
        if (decision.kind === 'fail') return Promise.reject(decision.error);
        const partial = decision.kind === 'short' && length !== undefined && length > 1 ? shortLength(length) : length;
        return handle.write(buffer, offset, partial, position);
      },
    }),
  });

  return {
    get count() {
      return count;
    },
    get injected() {
      return injected;
    },
    sites,
    arm(next) {
      plan = next;
      count = 0;
      injected = 0;
      shortPending = false;
      full = false;
    },
    freeSpace() {
      full = false;
      shortPending = false;
      plan = { failAt: 0, fault: 'enospc' };
    },
    restore,
  };
}
