/**
 * Chunk weights (ChunkWeights) and record time ranges (ChunkTimeStampRanges), per logical chunk.
 * A weight says how much a rewrite of the chunk would remove: +2 per record that will certainly
 * go, +1 per record that may go ($maxAge decides per record).
 */
import type Database from 'better-sqlite3';

export const DEFINITE_WEIGHT = 2;
export const MAYBE_WEIGHT = 1;

export interface TimeRange {
  min: number;
  max: number;
}

export class ChunkTables {
  private readonly addWeight: Database.Statement;
  private readonly sumWeights: Database.Statement;
  private readonly resetWeights: Database.Statement;
  private readonly totalWeight: Database.Statement;
  private readonly getRange: Database.Statement;
  private readonly putRange: Database.Statement;
  private readonly ranges = new Map<number, TimeRange | undefined>();

  constructor(db: Database.Database) {
    this.addWeight = db.prepare('INSERT INTO ChunkWeights (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = value + excluded.value');
    this.sumWeights = db.prepare('SELECT COALESCE(SUM(value), 0) FROM ChunkWeights WHERE key BETWEEN ? AND ?').pluck();
    this.resetWeights = db.prepare('DELETE FROM ChunkWeights WHERE key BETWEEN ? AND ?');
    this.totalWeight = db.prepare('SELECT COALESCE(SUM(value), 0) FROM ChunkWeights WHERE key <= ?').pluck();
    this.getRange = db.prepare('SELECT min, max FROM ChunkTimeStampRanges WHERE key = ?');
    this.putRange = db.prepare('INSERT INTO ChunkTimeStampRanges (key, min, max) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET min = MIN(min, excluded.min), max = MAX(max, excluded.max)');
  }

  weigh(chunkNumber: number, weight: number): void {
    this.addWeight.run(chunkNumber, weight);
  }

  weightOf(startNumber: number, endNumber: number): number {
    return this.sumWeights.get(startNumber, endNumber) as number;
  }

  reset(startNumber: number, endNumber: number): void {
    this.resetWeights.run(startNumber, endNumber);
  }

  /** The weight of every chunk up to `endNumber`: 0 once every weighted chunk was executed. */
  weightUpTo(endNumber: number): number {
    return this.totalWeight.get(endNumber) as number;
  }

  widenTimeRange(chunkNumber: number, range: TimeRange): void {
    this.putRange.run(chunkNumber, range.min, range.max);
    this.ranges.delete(chunkNumber);
  }

  timeRange(chunkNumber: number): TimeRange | undefined {
    if (!this.ranges.has(chunkNumber)) this.ranges.set(chunkNumber, this.getRange.get(chunkNumber) as TimeRange | undefined);
    return this.ranges.get(chunkNumber);
  }
}
