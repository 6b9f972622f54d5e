import { randomUUID } from 'node:crypto';
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../src/storage/engine.js';
import type { EngineOptions } from '../src/storage/engine-options.js';
import type { NewEvent } from '../src/storage/streams/write-types.js';
import { nowMs, percentile, report, runFor, section } from './measure.js';

const DURATION_MS = Number(process.env.SVC_BENCH_SECONDS ?? 3) * 1000;

function scratchDirectory(): string {
  return mkdtempSync(join(process.env.SVC_BENCH_DIR ?? tmpdir(), 'svcdb-bench-'));
}

function openAt(directory: string, overrides: Partial<EngineOptions> = {}): Promise<Engine> {
  return Engine.open({ dbPath: join(directory, 'db'), indexPath: join(directory, 'index'), verifyChunks: 'off', ...overrides });
}

function event(bytes: number): NewEvent {
  return { eventId: randomUUID(), eventType: 'BenchEvent', data: Buffer.alloc(bytes, 0x61), metadata: Buffer.alloc(0), isJson: false };
}

/** The baseline: how many 4 KiB append + fdatasync rounds the disk does per second. */
async function rawFsyncRate(): Promise<number> {
  const directory = scratchDirectory();
  const fd = openSync(join(directory, 'raw'), 'w');
  const block = Buffer.alloc(4096, 1);
  const deadline = nowMs() + DURATION_MS;
  let rounds = 0;
  const start = nowMs();
  while (nowMs() < deadline) {
    writeSync(fd, block);
    fdatasyncSync(fd);
    rounds++;
  }
  const rate = rounds / ((nowMs() - start) / 1000);
  closeSync(fd);
  rmSync(directory, { recursive: true, force: true });
  report('baseline: raw 4 KiB append + fdatasync', rate, 'ops/s');
  return rate;
}

async function singleEventAppends(rawRate: number): Promise<void> {
  for (const concurrency of [1, 16, 64]) {
    const directory = scratchDirectory();
    const engine = await openAt(directory);
    const { latenciesMs, elapsedMs } = await runFor(DURATION_MS, concurrency, (loop) => engine.append(`single-${loop}`, -2, [event(100)]));
    const rate = latenciesMs.length / (elapsedMs / 1000);
    report(`single-event appends, ${concurrency} appenders`, rate, 'events/s',
      `p50 ${percentile(latenciesMs, 50).toFixed(2)} ms, p99 ${percentile(latenciesMs, 99).toFixed(2)} ms, ${(rate / rawRate).toFixed(1)}x raw fsync`);
    await engine.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

async function batchAppends(): Promise<void> {
  const directory = scratchDirectory();
  const engine = await openAt(directory);
  const batch = Array.from({ length: 100 }, () => event(200));
  const { latenciesMs, elapsedMs } = await runFor(DURATION_MS, 16, (loop) =>
    engine.append(`batch-${loop}`, -2, batch.map((e) => ({ ...e, eventId: randomUUID() }))));
  const events = latenciesMs.length * 100;
  const seconds = elapsedMs / 1000;
  report('100-event appends of 200-byte events, 16 appenders', events / seconds, 'events/s',
    `${((events * 200) / seconds / 1e6).toFixed(1)} MB/s of event data, p99 ${percentile(latenciesMs, 99).toFixed(1)} ms`);
  await engine.close();
  rmSync(directory, { recursive: true, force: true });
}

async function pageReads(): Promise<void> {
  const directory = scratchDirectory();
  const engine = await openAt(directory);
  for (let i = 0; i < 50; i++) await engine.append('read-me', -2, Array.from({ length: 100 }, () => event(200)));
  for (const pageSize of [20, 1000]) {
    const pages = Math.floor(4900 / pageSize);
    const start = nowMs();
    let reads = 0;
    while (nowMs() - start < DURATION_MS) {
      engine.readStreamForward('read-me', (reads % pages) * pageSize, pageSize);
      reads++;
    }
    report(`in-process ${pageSize}-event page reads (warm)`, reads / ((nowMs() - start) / 1000), 'pages/s');
  }
  await engine.close();
  rmSync(directory, { recursive: true, force: true });
}

/**
 * Page reads through completed chunks read from their files, as written (the position lookup is
 * the identity) and after the same chunks were rewritten with a position map (all records kept):
 * what the logical-to-physical lookup costs a reader, measured in the same run.
 */
async function mappedPageReads(): Promise<void> {
  const directory = scratchDirectory();
  const engine = await openAt(directory, { chunkSizeBytes: 1024 * 1024, cachedChunksMax: 0 });
  for (let i = 0; i < 100; i++) await engine.append('mapped', -2, Array.from({ length: 100 }, () => event(200)));
  const chunks = engine.status().chunkCount - 1;
  const measure = (): number => {
    const start = nowMs();
    let reads = 0;
    while (nowMs() - start < DURATION_MS) {
      engine.readStreamForward('mapped', (reads % 400) * 20, 20);
      reads++;
    }
    return reads / ((nowMs() - start) / 1000);
  };
  const identity = measure();
  report(`20-event page reads from ${chunks} completed chunk files, as written`, identity, 'pages/s', 'baseline for the line below');
  for (let n = 0; n < chunks; n++) await engine.rewriteChunks(n, n, () => true);
  const mapped = measure();
  report('the same reads after the chunks were rewritten with position maps', mapped, 'pages/s', `${((mapped / identity) * 100).toFixed(0)}% of as written`);
  await engine.close();
  rmSync(directory, { recursive: true, force: true });
}

async function startupTime(): Promise<void> {
  const directory = scratchDirectory();
  const engine = await openAt(directory);
  const streams = 100_000;
  const loops = 32;
  await Promise.all(Array.from({ length: loops }, async (_, loop) => {
    for (let s = loop; s < streams; s += loops) {
      await engine.append(`startup-${s}`, -2, Array.from({ length: 10 }, () => event(50)));
    }
  }));
  await engine.close();
  const start = nowMs();
  const reopened = await openAt(directory);
  const elapsed = nowMs() - start;
  report('start-up of a node with 1,000,000 events in 100,000 streams', elapsed / 1000, 's',
    `${reopened.status().chunkCount} chunks, index files ${reopened.indexStats().files.length}`);
  await reopened.close();
  rmSync(directory, { recursive: true, force: true });
}

/**
 * Appends to 1,000,000 brand-new streams, with memory tables of 250,000 entries so that several
 * are flushed; the rate per window of 125,000 shows what happens once lookups of "does this
 * stream exist" would have to go to index files. Run with and without the existence filter.
 */
async function newStreamAppends(existenceFilterSizeBytes: number, label: string): Promise<void> {
  const directory = scratchDirectory();
  const memTableEntriesMax = 250_000;
  const engine = await openAt(directory, { memTableEntriesMax, existenceFilterSizeBytes });
  const total = 1_000_000;
  const window = 125_000;
  const loops = 64;
  let written = 0;
  let windowStart = nowMs();
  const rates: number[] = [];
  await Promise.all(Array.from({ length: loops }, async (_, loop) => {
    for (let s = loop; s < total; s += loops) {
      await engine.append(`fresh-${s}-${randomUUID()}`, -1, [event(50)]);
      if (++written % window === 0) {
        rates.push(window / ((nowMs() - windowStart) / 1000));
        windowStart = nowMs();
      }
    }
  }));
  const before = rates[0];
  const after = Math.min(...rates.slice(Math.ceil(memTableEntriesMax / window)));
  report(`appends to new streams ${label}, before the first flush`, before, 'events/s');
  report(`appends to new streams ${label}, slowest window after`, after, 'events/s', `${((after / before) * 100).toFixed(0)}% of before; windows ${rates.map((r) => Math.round(r)).join(', ')}`);
  await engine.close();
  rmSync(directory, { recursive: true, force: true });
}

export async function storageBenchmarks(): Promise<void> {
  section('storage engine (in-process)');
  const raw = await rawFsyncRate();
  await singleEventAppends(raw);
  await batchAppends();
  await pageReads();
  await mappedPageReads();
  await startupTime();
  await newStreamAppends(0, 'without existence filter');
  await newStreamAppends(64 * 1024 * 1024, 'with existence filter');
}
