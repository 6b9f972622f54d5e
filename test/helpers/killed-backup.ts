/**
 * Shared by the tests that kill a backup part way: a small source whose streams are counted, a
 * wait for a backup child to stop itself at a chosen change (the command's testing hook
 * SVC_TEST_BACKUP_STOP_AFTER), and what a restore of a backup folder holds.
 */
import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { backup } from '../../src/maint/backup/backup.js';
import { restore } from '../../src/maint/backup/restore.js';
import { readStream } from './backup.js';
import type { CliProcess } from './cli.js';
import { newEvents, openEngine } from './engine.js';

const STOP_WAIT_MS = 30_000;
const STREAMS = ['alpha', 'beta', 'gamma'];
/** Fewer, larger index files than the helpers' default keep the number of steps (and child runs) down. */
const ENGINE = { memTableEntriesMax: 400 };

export type Counts = Map<string, number>;

/** Appends until the log has `chunks` chunks, then merges the index files (so a backup has some to delete). */
export async function appendUntilChunks(directory: string, chunks: number): Promise<void> {
  const engine = await openEngine(directory, ENGINE);
  for (let round = 0; engine.status().chunkCount < chunks; round++) await engine.append(STREAMS[round % STREAMS.length], -2, newEvents(10));
  await engine.mergeIndexes();
  await engine.settleIndex();
  await engine.close();
}

export async function countsOf(directory: string): Promise<Counts> {
  const engine = await openEngine(directory, ENGINE);
  try {
    return new Map(STREAMS.map((stream) => [stream, readStream(engine, stream).length]));
  } finally {
    await engine.close();
  }
}

/** Waits for the child to say it stopped itself, or fails saying what it waited for. */
export async function waitForStop(child: CliProcess, change: number): Promise<void> {
  const deadline = Date.now() + STOP_WAIT_MS;
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  while (!child.stderr.includes(`stopped after change ${change}:`)) {
    if (exited) throw new Error(`backup exited before its change ${change}:\n${child.stderr}`);
    if (Date.now() > deadline) throw new Error(`backup did not stop after change ${change} within ${STOP_WAIT_MS} ms:\n${child.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Temp files, stale locks and .old chunks under `folder`. */
export function leftovers(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.tmp') || name.endsWith('.stale') || name.endsWith('.old'));
}

/** Restores `folder` into a new directory and reads what each stream holds there. */
export async function restoredCounts(folder: string, target: string): Promise<Counts> {
  await restore({ source: folder, db: join(target, 'db'), index: join(target, 'index'), force: false });
  return countsOf(target);
}

export interface KilledBackupScenario {
  source: { db: string; index: string };
  /** A full backup of the first two chunks: the backup a killed run starts from. */
  base: string;
  /** Stream counts at the base backup, and after two more chunks were written. */
  before: Counts;
  after: Counts;
  /** The changes a run of the same kind makes to a copy of `base`, in order (the steps to kill it at). */
  changes: string[];
}

/**
 * A source of two chunks backed up fully into `base`, two more chunks written after, and the list
 * of changes a `differential` (or full) backup then makes to a copy of `base`.
 */
export async function killedBackupScenario(directory: string, differential: boolean): Promise<KilledBackupScenario> {
  const source = { db: join(directory, 'db'), index: join(directory, 'index') };
  await appendUntilChunks(directory, 2);
  const base = join(directory, 'base');
  await backup({ ...source, destination: base, differential: false });
  const before = await countsOf(directory);
  await appendUntilChunks(directory, 4);
  const after = await countsOf(directory);
  const probe = join(directory, 'probe');
  cpSync(base, probe, { recursive: true });
  const changes: string[] = [];
  await backup({ ...source, destination: probe, differential, onChange: (change) => changes.push(change) });
  return { source, base, before, after, changes };
}
