/**
 * The scavenge data of streams, keyed by hash or, for colliding names, by name (stream-keys.ts):
 * for a metadata stream its discard point and the position of its latest record; for an
 * original stream its tombstone, metadata and discard points.
 */
import type Database from 'better-sqlite3';
import type { StreamKey, StreamKeys } from './stream-keys.js';

export const StreamStatus = { none: 0, active: 1, archived: 2, spent: 3 } as const;

export interface MetastreamData {
  name: string;
  isTombstoned: boolean;
  /** Records numbered below this are removed (the latest record is at it). */
  discardPoint: number;
  /** Log position of the latest metadata record; -1 when unknown. */
  lastPosition: number;
}

export interface OriginalStreamData {
  name: string;
  isTombstoned: boolean;
  maxAgeSeconds: number | undefined;
  maxCount: number | undefined;
  truncateBefore: number | undefined;
  /** Events numbered below this are removed. */
  discardPoint: number;
  /** Events numbered below this (and at or past discardPoint) are removed once older than $maxAge. */
  maybeDiscardPoint: number;
  status: number;
}

interface MetaRow { name: string; isTombstoned: number; discardPoint: number; lastPosition: number }
interface OriginalRow {
  name: string; isTombstoned: number; maxAge: number | null; maxCount: number | null; truncateBefore: number | null;
  discardPoint: number; maybeDiscardPoint: number; status: number;
}

function statements(db: Database.Database, table: string, columns: string) {
  const names = columns.split(', ');
  return {
    get: db.prepare(`SELECT name, ${columns} FROM ${table} WHERE key = ?`),
    put: db.prepare(`INSERT OR REPLACE INTO ${table} (key, name, ${columns}) VALUES (?, ?, ${names.map(() => '?').join(', ')})`),
  };
}

const META_COLUMNS = 'isTombstoned, discardPoint, lastPosition';
const ORIGINAL_COLUMNS = 'isTombstoned, maxAge, maxCount, truncateBefore, discardPoint, maybeDiscardPoint, status';

export class StreamData {
  private readonly meta: ReturnType<typeof statements>[];
  private readonly original: ReturnType<typeof statements>[];

  constructor(db: Database.Database, private readonly keys: StreamKeys) {
    this.meta = [statements(db, 'MetastreamDatas', META_COLUMNS), statements(db, 'MetastreamDataCollisions', META_COLUMNS)];
    this.original = [statements(db, 'OriginalStreamDatas', ORIGINAL_COLUMNS), statements(db, 'OriginalStreamDataCollisions', ORIGINAL_COLUMNS)];
  }

  private pick<T>(pair: T[], key: StreamKey): T {
    return pair[key.byName ? 1 : 0];
  }

  metastream(streamName: string): MetastreamData | undefined {
    const key = this.keys.keyOf(streamName);
    const row = this.pick(this.meta, key).get.get(key.key) as MetaRow | undefined;
    if (row === undefined || row.name !== streamName) return undefined;
    return { name: row.name, isTombstoned: row.isTombstoned !== 0, discardPoint: row.discardPoint, lastPosition: row.lastPosition };
  }

  putMetastream(data: MetastreamData): void {
    const key = this.keys.keyOf(data.name);
    this.pick(this.meta, key).put.run(key.key, data.name, data.isTombstoned ? 1 : 0, data.discardPoint, data.lastPosition);
  }

  originalStream(streamName: string): OriginalStreamData | undefined {
    const key = this.keys.keyOf(streamName);
    const row = this.pick(this.original, key).get.get(key.key) as OriginalRow | undefined;
    if (row === undefined || row.name !== streamName) return undefined;
    return originalOf(row);
  }

  putOriginalStream(data: OriginalStreamData): void {
    const key = this.keys.keyOf(data.name);
    this.pick(this.original, key).put.run(
      key.key, data.name, data.isTombstoned ? 1 : 0, data.maxAgeSeconds ?? null, data.maxCount ?? null, data.truncateBefore ?? null,
      data.discardPoint, data.maybeDiscardPoint, data.status,
    );
  }
}

export function originalOf(row: OriginalRow): OriginalStreamData {
  return {
    name: row.name, isTombstoned: row.isTombstoned !== 0, maxAgeSeconds: row.maxAge ?? undefined, maxCount: row.maxCount ?? undefined,
    truncateBefore: row.truncateBefore ?? undefined, discardPoint: row.discardPoint, maybeDiscardPoint: row.maybeDiscardPoint, status: row.status,
  };
}

export type { OriginalRow };
