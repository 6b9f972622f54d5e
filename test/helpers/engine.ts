import { randomUUID } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readdirSync, readlinkSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { Chunk } from '../../src/storage/log/chunk.js';
import { chunkFileName } from '../../src/storage/log/chunk-format.js';
import { Engine } from '../../src/storage/engine.js';
import type { EngineOptions } from '../../src/storage/engine-options.js';
import type { NewEvent } from '../../src/storage/streams/write-types.js';
import { withDeadline } from './wait.js';

/** Small chunks and a small memory table so tests cross chunk ends and write index files. */
export const SMALL = { chunkSizeBytes: 64 * 1024, memTableEntriesMax: 50, existenceFilterSizeBytes: 64 * 1024 } as const;

export function engineOptions(directory: string, overrides: Partial<EngineOptions> = {}): EngineOptions {
  return { dbPath: join(directory, 'db'), indexPath: join(directory, 'index'), verifyChunks: 'blocking', ...SMALL, ...overrides };
}

const openEngines = new Map<string, Set<Engine>>();

/**
 * Opens an engine in `directory`. Engines opened here are closed by the teardown of
 * tempDirectory(), before the directory is removed.
 */
export async function openEngine(directory: string, overrides: Partial<EngineOptions> = {}): Promise<Engine> {
  const engine = await Engine.open(engineOptions(directory, overrides));
  if (!openEngines.has(directory)) openEngines.set(directory, new Set());
  openEngines.get(directory)!.add(engine);
  return engine;
}

/** Descriptors of this process open on files under `directory` (deleted ones included). */
export function descriptorsUnder(directory: string): string[] {
  const paths: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`${directory}/`)) paths.push(target);
    } catch {
      // The descriptor readdirSync itself used, closed since.
    }
  }
  return paths;
}

/** A fresh directory for one test; its engines are closed and it is removed at teardown. */
export function tempDirectory(t: Test): string {
  const directory = mkdtempSync(join(tmpdir(), 'svcdb-test-'));
  t.teardown(async () => {
    for (const engine of openEngines.get(directory) ?? []) await engine.close();
    openEngines.delete(directory);
    rmSync(directory, { recursive: true, force: true });
  });
  return directory;
}

export function newEvent(eventType = 'TestEvent', body: unknown = { value: randomUUID() }): NewEvent {
  return { eventId: randomUUID(), eventType, data: Buffer.from(JSON.stringify(body)), metadata: Buffer.from('{}'), isJson: true };
}

export function newEvents(count: number, eventType = 'TestEvent'): NewEvent[] {
  return Array.from({ length: count }, (_, i) => newEvent(eventType, { i, pad: 'x'.repeat(i % 50) }));
}

/** Appends beyond this many without reaching the chunk count mean the log does not grow. */
const APPENDS_TO_FILL_CHUNKS_MAX = 5000;

/** Appends batches of 10 events to `stream` until the log has `chunkCount` chunks. */
export async function appendUntilChunks(engine: Engine, stream: string, chunkCount: number): Promise<void> {
  for (let appends = 0; engine.status().chunkCount < chunkCount; appends++) {
    if (appends === APPENDS_TO_FILL_CHUNKS_MAX) {
      throw new Error(`${APPENDS_TO_FILL_CHUNKS_MAX} appends of 10 events did not make ${chunkCount} chunks (${engine.status().chunkCount})`);
    }
    await engine.append(stream, -2, newEvents(10));
  }
}

/** The error the engine stops with, from now on; fails if it does not stop within the deadline. */
export function fatalError(engine: Engine): Promise<Error> {
  return withDeadline(new Promise<Error>((resolve) => engine.onFatal(resolve)), 'the engine to stop with a fatal error');
}

/**
 * A real engine with some of its methods replaced, to inject a fault the engine cannot be made to
 * have (a fatal error on demand, a close that fails); everything else is the engine itself.
 */
export function withFaults<T extends object>(engine: Engine, faults: Partial<T>): Engine & T {
  return new Proxy(engine, {
    get(target, key) {
      if (Object.hasOwn(faults, key)) return (faults as Record<PropertyKey, unknown>)[key];
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as Engine & T;
}

/**
 * Flips one byte of the first chunk file in `directory`, at file offset `offset`, as a failing
 * disk would; the chunk must be completed (the damage then lies below writer.chk). Returns its path.
 */
export async function flipByteInFirstChunk(directory: string, offset: number, chunkSizeBytes: number = SMALL.chunkSizeBytes): Promise<string> {
  const path = join(directory, 'db', chunkFileName(0, 0));
  const fd = openSync(path, 'r+');
  const byte = Buffer.alloc(1);
  readSync(fd, byte, 0, 1, offset);
  byte[0] ^= 0xff;
  writeSync(fd, byte, 0, 1, offset);
  closeSync(fd);
  const chunk = await Chunk.open(path, chunkSizeBytes);
  const completed = chunk.isCompleted;
  await chunk.close();
  if (!completed) throw new Error('the test needs a completed chunk');
  return path;
}
