/**
 * A database for redaction tests: several streams spread over several small chunks, the last one
 * still ongoing, and helpers that redact through the engine as the redactor does and that take a
 * picture of everything readers see.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import type { Engine } from '../../src/storage/engine.js';
import { EventFlags, type EventRecord } from '../../src/storage/log/record.js';
import { writeRedactedCopy } from '../../src/maint/redact/chunk-copy.js';
import { formatEvent, type EventReference } from '../../src/maint/redact/events-list.js';
import { openEngine, tempDirectory } from './engine.js';

export const REDACTION_STREAMS = ['orders-1', 'orders-2', 'invoices'];

/** Appends ~`rounds` events to each stream, with data and metadata, and closes the engine. */
export async function buildRedactionDatabase(t: Test, rounds = 400): Promise<string> {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  for (let round = 0; round < rounds; round++) {
    for (const stream of REDACTION_STREAMS) {
      await engine.append(stream, -2, [{
        eventId: randomUUID(), eventType: `Type${round % 4}`, isJson: true,
        data: Buffer.from(JSON.stringify({ secret: `${stream}-${round}-${'s'.repeat(round % 40)}` })),
        metadata: Buffer.from(JSON.stringify({ round })),
      }]);
    }
  }
  await engine.close();
  return directory;
}

export const chunkFilesOf = (directory: string) => readdirSync(join(directory, 'db')).filter((name) => name.startsWith('chunk-')).sort();
export const tempFilesOf = (directory: string) => readdirSync(join(directory, 'db')).filter((name) => name.endsWith('.tmp'));

export function isRedacted(event: EventRecord): boolean {
  return (event.flags & EventFlags.isRedacted) !== 0;
}

/** Every event of every stream as stored, keyed `number@stream`. */
export function storedEvents(engine: Engine): Map<string, EventRecord> {
  const events = new Map<string, EventRecord>();
  for (const stream of REDACTION_STREAMS) {
    for (const event of engine.readStreamForward(stream, 0, 4096).events) {
      events.set(`${event.eventNumber}@${stream}`, { ...event, data: Buffer.from(event.data), metadata: Buffer.from(event.metadata) });
    }
  }
  return events;
}

/** Events whose chunk is completed, a few per chunk and stream, spread over at least `chunks` chunks. */
export function completedEvents(engine: Engine, perStream: number): EventReference[] {
  const picked: EventReference[] = [];
  for (const stream of REDACTION_STREAMS) {
    const events = engine.readStreamForward(stream, 0, 4096).events;
    const completed = events.filter((event) => engine.eventPositions(stream, event.eventNumber)[0].isCompleted);
    const step = Math.max(1, Math.floor(completed.length / perStream));
    for (let i = 0; i < completed.length && picked.length < perStream * REDACTION_STREAMS.length; i += step) {
      picked.push({ streamName: stream, eventNumber: completed[i].eventNumber });
    }
  }
  return picked;
}

/** Redacts `events` through the engine API, as the socket service would: lock, positions, copy, switch. */
export async function redactThroughEngine(engine: Engine, dbPath: string, events: readonly EventReference[]): Promise<string[]> {
  const hold = engine.takeChunkSwitchLock('redaction');
  try {
    const byChunk = new Map<string, Array<{ event: EventReference; fileOffset: number }>>();
    for (const event of events) {
      for (const position of engine.eventPositions(event.streamName, event.eventNumber)) {
        const list = byChunk.get(position.chunkFileName) ?? [];
        list.push({ event, fileOffset: position.fileOffset });
        byChunk.set(position.chunkFileName, list);
      }
    }
    const switched: string[] = [];
    for (const [chunkFile, records] of byChunk) {
      const temp = join(dbPath, `${chunkFile}.redact.tmp`);
      if ((await writeRedactedCopy(join(dbPath, chunkFile), temp, records)) === 0) continue;
      switched.push(await engine.switchRedactedChunk(chunkFile, temp, hold));
    }
    return switched;
  } finally {
    engine.releaseChunkSwitchLock(hold);
  }
}

/**
 * Checks a database after a crash against the events before it: every event is there, each listed
 * event is fully redacted or untouched, every other one untouched. Returns how many are redacted.
 */
export function checkConsistent(t: Test, label: string, engine: Engine, before: Map<string, EventRecord>, targets: EventReference[]): number {
  const listed = new Set(targets.map(formatEvent));
  const after = storedEvents(engine);
  t.equal(after.size, before.size, `${label}: every event is there`);
  let redacted = 0;
  for (const [key, original] of before) {
    const now = after.get(key);
    if (!now) continue;
    const untouched = JSON.stringify(now) === JSON.stringify(original);
    const fully = listed.has(key) && isRedacted(now) && now.data.equals(Buffer.alloc(original.data.length, 0xff))
      && JSON.stringify({ ...now, data: null, flags: now.flags & ~0x200 }) === JSON.stringify({ ...original, data: null });
    if (fully) redacted++;
    else if (!untouched) t.fail(`${label}: ${key} is neither untouched nor fully redacted`);
  }
  return redacted;
}

/** Each chunk has one file and no .tmp file is left. */
export function checkFiles(t: Test, label: string, directory: string): void {
  const numbers = chunkFilesOf(directory).map((name) => name.slice(6, 12));
  t.equal(new Set(numbers).size, numbers.length, `${label}: no chunk has two files`);
  t.same(tempFilesOf(directory), [], `${label}: no .tmp file is left`);
}
