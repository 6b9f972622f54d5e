/**
 * `scavenging.db`: the scavenge's state between runs and its checkpoint, in SQLite (the
 * reference's schema, version 1, with a stream name kept beside each hash-keyed row so that a
 * later collision can move the row to the by-name tables). WAL with manual checkpoints and
 * synchronous=NORMAL: a transaction lost to a power cut only repeats work, since every step of
 * a run can be done again.
 */
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ScavengePoint, ScavengeStage } from './types.js';
import { PRIVATE_DIRECTORY_MODE } from '../../disk/file-modes.js';

export const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS SchemaVersion (version INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS Checkpoint (key INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS HashUsers (key INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS HashCollisions (key TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS MetastreamDatas (
  key INTEGER PRIMARY KEY, name TEXT NOT NULL, isTombstoned INTEGER NOT NULL DEFAULT 0,
  discardPoint INTEGER NOT NULL DEFAULT 0, lastPosition INTEGER NOT NULL DEFAULT -1);
CREATE TABLE IF NOT EXISTS MetastreamDataCollisions (
  key TEXT PRIMARY KEY, name TEXT NOT NULL, isTombstoned INTEGER NOT NULL DEFAULT 0,
  discardPoint INTEGER NOT NULL DEFAULT 0, lastPosition INTEGER NOT NULL DEFAULT -1);
CREATE TABLE IF NOT EXISTS OriginalStreamDatas (
  key INTEGER PRIMARY KEY, name TEXT NOT NULL, isTombstoned INTEGER NOT NULL DEFAULT 0, maxAge INTEGER, maxCount INTEGER,
  truncateBefore INTEGER, discardPoint INTEGER NOT NULL DEFAULT 0, maybeDiscardPoint INTEGER NOT NULL DEFAULT 0,
  status INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS OriginalStreamDatasStatus ON OriginalStreamDatas (status, key);
CREATE TABLE IF NOT EXISTS OriginalStreamDataCollisions (
  key TEXT PRIMARY KEY, name TEXT NOT NULL, isTombstoned INTEGER NOT NULL DEFAULT 0, maxAge INTEGER, maxCount INTEGER,
  truncateBefore INTEGER, discardPoint INTEGER NOT NULL DEFAULT 0, maybeDiscardPoint INTEGER NOT NULL DEFAULT 0,
  status INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS OriginalStreamDataCollisionsStatus ON OriginalStreamDataCollisions (status, key);
CREATE TABLE IF NOT EXISTS ChunkTimeStampRanges (key INTEGER PRIMARY KEY, min INTEGER NOT NULL, max INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS ChunkWeights (key INTEGER PRIMARY KEY, value REAL NOT NULL);
`;

/** The Checkpoint row's JSON value. */
export interface CheckpointValue {
  scavengePoint: ScavengePoint;
  schemaVersion: number;
  checkpointStage: ScavengeStage;
  /** The last logical chunk accumulated or executed in the stage (-1: none yet). */
  doneLogicalChunkNumber: number;
  /** The last stream calculated in the stage: `h:<hash>` or `n:<name>`; '' for none yet. */
  doneStreamHandle: string;
  /** Every record below this log position has been accumulated (this run's and earlier ones). */
  accumulatedTo: number;
}

export interface StateDbOptions {
  path: string;
  pageSizeBytes: number;
  cacheSizeBytes: number;
}

export function openStateDb(options: StateDbOptions): Database.Database {
  mkdirSync(dirname(options.path), { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  const db = new Database(options.path);
  try {
    // The page size applies to a new database only (before WAL): an existing file keeps its own.
    db.pragma(`page_size = ${options.pageSizeBytes}`);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.pragma('synchronous = NORMAL');
    db.pragma(`cache_size = ${-Math.max(1, Math.floor(options.cacheSizeBytes / 1024))}`);
    db.exec(SCHEMA);
    db.prepare('INSERT OR IGNORE INTO SchemaVersion (version) VALUES (?)').run(SCHEMA_VERSION);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** The Checkpoint row's value as stored; undefined when there is none yet. */
function storedCheckpoint(db: Database.Database): string | undefined {
  const row = db.prepare('SELECT value FROM Checkpoint WHERE key = 0').get() as { value?: unknown } | undefined;
  return typeof row?.value === 'string' ? row.value : undefined;
}

export function readCheckpoint(db: Database.Database): CheckpointValue | undefined {
  const stored = storedCheckpoint(db);
  return stored === undefined ? undefined : JSON.parse(stored) as CheckpointValue;
}

export function writeCheckpoint(db: Database.Database, value: CheckpointValue): void {
  db.prepare('INSERT INTO Checkpoint (key, value) VALUES (0, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(JSON.stringify(value));
}

/** The state file as a process other than the node finds it (readStateFromOutside). */
export interface StoredState {
  exists: boolean;
  /** The Checkpoint row's value as stored, to notice any change at all. */
  checkpoint?: string;
  /** Its checkpointStage, or in parentheses why there is none. */
  stage?: string;
}

function stageOf(checkpoint: string): string {
  try {
    const stage = (JSON.parse(checkpoint) as Partial<CheckpointValue>).checkpointStage;
    return typeof stage === 'string' ? stage : '(no checkpointStage)';
  } catch {
    return '(checkpoint is not JSON)';
  }
}

/**
 * Reads the state file read-only, from a process other than the node (a backup checking that no
 * scavenge runs), waiting up to `busyTimeoutMs` for a scavenge's write transaction. Never throws:
 * a file that cannot be read says why in `stage`.
 */
export function readStateFromOutside(path: string, busyTimeoutMs: number): StoredState {
  if (!existsSync(path)) return { exists: false };
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
    const checkpoint = storedCheckpoint(db);
    return checkpoint === undefined ? { exists: true, stage: '(no checkpoint yet)' } : { exists: true, checkpoint, stage: stageOf(checkpoint) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false };
    return { exists: true, stage: `(unreadable: ${(error as Error).message})` };
  } finally {
    db?.close();
  }
}

/**
 * SQLite's quick_check of a state file that must not change (one in a backup): run on a copy in
 * the temp directory, since opening it in place would leave -wal and -shm files beside it.
 * Returns 'ok' or what SQLite found.
 */
export async function quickCheckCopy(path: string): Promise<string> {
  const scratch = join(tmpdir(), `svcdb-check-${randomUUID()}.db`);
  try {
    await copyFile(path, scratch);
    const db = new Database(scratch, { fileMustExist: true });
    try {
      return String(db.pragma('quick_check', { simple: true }));
    } finally {
      db.close();
    }
  } finally {
    await rm(scratch, { force: true });
    await rm(`${scratch}-wal`, { force: true });
    await rm(`${scratch}-shm`, { force: true });
  }
}

/** Moves the WAL into the database file: at the end of each stage. */
export function checkpointWal(db: Database.Database): void {
  db.pragma('wal_checkpoint(RESTART)');
}
