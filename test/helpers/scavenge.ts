/**
 * Scavenge helpers: a scavenge point written as the node writes it (a `$scavengePoint` event in
 * `$scavengePoints`, then the chunk completed), a scavenger on the index directory, a run with
 * defaults, and what a reader sees of the whole database.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../../src/storage/engine.js';
import type { EventRecord } from '../../src/storage/log/record.js';
import { openScavenger } from '../../src/storage/maintenance/scavenge/scavenger.js';
import type { ScavengeOutcome, ScavengePoint, ScavengeRunOptions, Scavenger } from '../../src/storage/maintenance/scavenge/types.js';
import { parseChunkFileName } from '../../src/storage/log/chunk-format.js';

export const POINTS_STREAM = '$scavengePoints';

export async function writeScavengePoint(engine: Engine, threshold: number, eventId: string = randomUUID()): Promise<ScavengePoint> {
  const data = Buffer.from(JSON.stringify({ threshold }));
  const result = await engine.append(POINTS_STREAM, -2, [{ eventId, eventType: '$scavengePoint', data, metadata: Buffer.alloc(0), isJson: true }]);
  await engine.completeActiveChunk();
  const event = engine.readEvent(POINTS_STREAM, result.firstEventNumber).event!;
  return { number: result.firstEventNumber, position: result.logPosition, effectiveNowMs: event.timestamp, threshold };
}

export function scavengerFor(engine: Engine, indexPath: string, hashUsersCacheCapacity = 1000): Scavenger {
  return openScavenger(engine, {
    path: join(indexPath, 'scavenging', 'scavenging.db'), pageSizeBytes: 16 * 1024, cacheSizeBytes: 1024 * 1024, hashUsersCacheCapacity,
  });
}

export function runScavenge(scavenger: Scavenger, point: ScavengePoint, options: Partial<ScavengeRunOptions> = {}): Promise<ScavengeOutcome> {
  return scavenger.run({ point, threads: 1, throttlePercent: 100, mergeChunks: true, signal: new AbortController().signal, ...options });
}

export function identify(event: EventRecord): string {
  return `${event.streamName}/${event.eventNumber}/${event.eventId}`;
}

/** Every event of $all, forward, as identities. */
export function readAll(engine: Engine): string[] {
  const found: string[] = [];
  for (let position = 0; ;) {
    const page = engine.readAllForward(position, 500);
    found.push(...page.events.map(identify));
    if (page.isEnd) return found;
    position = page.nextPosition;
  }
}

/** Every event of $all, forward, as records. */
export function readAllEvents(engine: Engine): EventRecord[] {
  const found: EventRecord[] = [];
  for (let position = 0; ;) {
    const page = engine.readAllForward(position, 500);
    found.push(...page.events);
    if (page.isEnd) return found;
    position = page.nextPosition;
  }
}

/** What stream reads show of each stream: forward, backward, and by number, with the status. */
export function readStreams(engine: Engine, streams: readonly string[]): Record<string, unknown> {
  const seen: Record<string, unknown> = {};
  for (const stream of streams) {
    const forward = engine.readStreamForward(stream, 0, 4096);
    const backward = engine.readStreamBackward(stream, -1, 4096);
    const last = engine.readEvent(stream, -1);
    seen[stream] = {
      status: forward.status, lastEventNumber: forward.lastEventNumber, forward: forward.events.map(identify),
      backward: backward.events.map(identify), last: last.event ? identify(last.event) : last.status,
    };
  }
  return seen;
}

/** Bytes of chunk files in the database directory. */
export function chunkBytes(dbPath: string): number {
  return readdirSync(dbPath).filter((name) => parseChunkFileName(name)).reduce((sum, name) => sum + statSync(join(dbPath, name)).size, 0);
}

/** Chunk file names in the database directory. */
export function chunkNames(dbPath: string): string[] {
  return readdirSync(dbPath).filter((name) => parseChunkFileName(name)).sort();
}
