/**
 * How many HTTP connections a node may hold open at once. Every connection takes a file
 * descriptor, and so does every chunk, index file and checkpoint the storage opens: when
 * connections use up the process's descriptors, the writer cannot open its next chunk (EMFILE)
 * and the node stops. The default cap leaves a reserve of descriptors for the storage below the
 * process's soft limit.
 */
import { readFileSync } from 'node:fs';

/** Descriptors kept for storage files (one per chunk, index file and checkpoint) and Node's own. */
export const STORAGE_DESCRIPTORS_RESERVE = 1024;

/** The cap when the descriptor limit cannot be read (no /proc, or an unlimited soft limit). */
export const CONNECTIONS_MAX_FALLBACK = 1000;

/** The soft limit of open files from `/proc/self/limits` ("Max open files"), or undefined. */
export function openFilesSoftLimit(limitsText = readLimits()): number | undefined {
  const match = limitsText === undefined ? null : /^Max open files\s+(\S+)/m.exec(limitsText);
  if (!match) return undefined;
  const limit = Number(match[1]);
  return Number.isSafeInteger(limit) && limit > 0 ? limit : undefined;
}

/**
 * The cap for a soft limit of `softLimit` descriptors: all but the storage reserve, and never
 * more than half of a limit too small to keep the whole reserve.
 */
export function defaultConnectionsMax(softLimit: number | undefined): number {
  if (softLimit === undefined) return CONNECTIONS_MAX_FALLBACK;
  return Math.max(1, softLimit - STORAGE_DESCRIPTORS_RESERVE, Math.floor(softLimit / 2));
}

export interface ConnectionsMax {
  value: number;
  /** Set when a configured cap leaves the storage fewer descriptors than the reserve. */
  warning?: string;
}

/** The cap in force: `configured` (0 means the default) checked against the descriptor limit. */
export function connectionsMaxOf(configured: number, softLimit = openFilesSoftLimit()): ConnectionsMax {
  const derived = defaultConnectionsMax(softLimit);
  if (configured === 0) return { value: derived };
  if (softLimit !== undefined && configured > derived) {
    return {
      value: configured,
      warning: `--connections-max ${configured} leaves the storage fewer than ${STORAGE_DESCRIPTORS_RESERVE} of the ${softLimit} file descriptors `
        + `the process may open; idle connections can then stop the node from opening its files. Lower it to ${derived} or raise ulimit -n`,
    };
  }
  return { value: configured };
}

function readLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}
