/**
 * The cold log: SVC_BENCH_COLD_GIB GiB of ~320-byte JSON events written by the engine in this
 * process (no HTTP parsing on the way: the log is the setting, not the measure), into the directories a
 * `svcdb serve --db <scratch>/db` opens. Appends of 25 events cycle through 10,000 streams, so
 * each stream's events lie scattered over the whole log; one append in 20 goes to the stream the
 * subscription of the scans catches up on, which thus spans the whole log too.
 */
import { randomUUID } from 'node:crypto';
import { statfsSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '../../src/common/logger.js';
import { Engine } from '../../src/storage/engine.js';
import type { NewEvent } from '../../src/storage/streams/write-types.js';
import { nowMs } from '../measure.js';
import { EVENT_TYPE, PAYLOAD } from '../peers/workloads.js';

export const GiB = 1024 ** 3;
export const STREAMS = 10_000;
export const SUBSCRIBED_STREAM = 'cold-ledger';
export const streamName = (index: number) => `order-${index}`;

const EVENTS_PER_APPEND = 25;
const APPENDS_IN_FLIGHT = 40;
const SUBSCRIBED_EVERY = 20;
/** Room for the log, its index files and a preallocated chunk: three times the log. */
const FREE_SPACE_FACTOR = 3;

export interface ColdLog {
  /** Log bytes written (the end of the log). */
  bytes: number;
  events: number;
  /** Events of each order-N stream, about. */
  eventsPerStream: number;
  seconds: number;
}

/** Throws, saying what to do, unless the disk of `directory` has room for a log of `bytes`. */
export function checkFreeSpace(directory: string, bytes: number): void {
  const stats = statfsSync(directory);
  const free = stats.bavail * stats.bsize;
  const needed = FREE_SPACE_FACTOR * bytes;
  if (free < needed) {
    throw new Error(`cold-reads needs ${(needed / GiB).toFixed(1)} GiB free in ${directory} for a log of ${(bytes / GiB).toFixed(1)} GiB, `
      + `and ${(free / GiB).toFixed(1)} GiB are free: lower SVC_BENCH_COLD_GIB or point SVC_BENCH_DIR at a larger disk`);
  }
}

function batch(): NewEvent[] {
  const data = Buffer.from(PAYLOAD);
  const metadata = Buffer.alloc(0);
  return Array.from({ length: EVENTS_PER_APPEND }, () => ({ eventId: randomUUID(), eventType: EVENT_TYPE, isJson: true, data, metadata }));
}

/** Writes the log under `directory` (db/ and index/) until it holds `bytes`. */
export async function buildLog(directory: string, bytes: number): Promise<ColdLog> {
  const started = nowMs();
  const engine = await Engine.open({ dbPath: join(directory, 'db'), indexPath: join(directory, 'index'), verifyChunks: 'off', logger: silentLogger });
  let appends = 0;
  let orderAppends = 0;
  let written = 0;
  const next = () => {
    const stream = appends++ % SUBSCRIBED_EVERY === 0 ? SUBSCRIBED_STREAM : streamName(orderAppends++ % STREAMS);
    return engine.append(stream, -2, batch());
  };
  try {
    // Appends in flight share group commits, as many clients' appends would.
    await Promise.all(Array.from({ length: APPENDS_IN_FLIGHT }, async () => {
      while (engine.status().readableEnd < bytes) await next();
    }));
    written = engine.status().readableEnd;
  } finally {
    await engine.close();
  }
  return { bytes: written, events: appends * EVENTS_PER_APPEND, eventsPerStream: Math.floor((orderAppends * EVENTS_PER_APPEND) / STREAMS), seconds: (nowMs() - started) / 1000 };
}
