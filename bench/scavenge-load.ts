/**
 * Appends during a scavenge: single-event appends by 16 concurrent appenders while the node's
 * scavenge service (the real scavenger, in the same process as the writer, as in a node) runs at
 * throttlePercent 100 and 50, beside the same load on the same log with no scavenge, measured in
 * the same run (target: at least 70% of the throughput without a scavenge, at 50). Each run gets
 * its own copy of one prepared log: chunks of which half the events are removable ($maxCount).
 * The load runs as long as the scavenge does (at most two minutes), so rests and work are both in
 * it. The time each scavenge takes to the end is shown too (50 should take about twice as long as 100).
 * SVC_BENCH_SCAVENGE_LOAD_MIB sets the size of the log (default 256), SVC_BENCH_SCAVENGE_LOAD_CHUNK_MIB its
 * chunk size (default 32), SVC_BENCH_SECONDS the window.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/common/logger.js';
import { openNodeScavenger } from '../src/daemon/scavenge/open-scavenger.js';
import { ScavengeService } from '../src/daemon/scavenge/scavenge-service.js';
import { DEFAULT_START_REQUEST } from '../src/daemon/scavenge/start-request.js';
import { Engine } from '../src/storage/engine.js';
import type { NewEvent } from '../src/storage/streams/write-types.js';
import { nowMs, percentile, report, section } from './measure.js';

const MiB = 1024 * 1024;
const LOG_BYTES = Number(process.env.SVC_BENCH_SCAVENGE_LOAD_MIB ?? 256) * MiB;
const CHUNK_BYTES = Number(process.env.SVC_BENCH_SCAVENGE_LOAD_CHUNK_MIB ?? 32) * MiB;
const WINDOW_MS = Number(process.env.SVC_BENCH_SECONDS ?? 3) * 1000;
/** The load runs for the whole scavenge, up to this long. */
const SCAVENGE_WINDOW_MS_MAX = 120_000;
const APPENDERS = 16;
const EVENT_BYTES = 1024;
const EVENTS_PER_APPEND = 100;
const STREAMS = 64;

function event(bytes: number): NewEvent {
  return { eventId: randomUUID(), eventType: 'BenchEvent', data: Buffer.alloc(bytes, 0x61), metadata: Buffer.alloc(0), isJson: false };
}

function open(directory: string): Promise<Engine> {
  return Engine.open({ dbPath: join(directory, 'db'), indexPath: join(directory, 'index'), chunkSizeBytes: CHUNK_BYTES, verifyChunks: 'off' });
}

/** Half the streams keep their last 10 events ($maxCount); the other half keep everything. */
async function prepare(directory: string): Promise<void> {
  const engine = await open(directory);
  for (let stream = 0; stream < STREAMS; stream += 2) await engine.setStreamMetadata(`bench-${stream}`, -2, { $maxCount: 10 });
  for (let round = 0; engine.status().readableEnd < LOG_BYTES; round++) {
    await engine.append(`bench-${round % STREAMS}`, -2, Array.from({ length: EVENTS_PER_APPEND }, () => event(EVENT_BYTES)));
  }
  await engine.close();
}

interface Load {
  rate: number;
  p99Ms: number;
  windowMs: number;
}

/** Single-event appends by APPENDERS loops, for `windowMs` or until `going` says stop. */
async function appendLoad(engine: Engine, windowMs: number, going: () => boolean): Promise<Load> {
  const latenciesMs: number[] = [];
  const start = nowMs();
  const deadline = start + windowMs;
  await Promise.all(Array.from({ length: APPENDERS }, async (_, loop) => {
    while (nowMs() < deadline && going()) {
      const t0 = nowMs();
      await engine.append(`load-${loop}`, -2, [event(100)]);
      latenciesMs.push(nowMs() - t0);
    }
  }));
  const elapsedMs = nowMs() - start;
  latenciesMs.sort((a, b) => a - b);
  return { rate: latenciesMs.length / (elapsedMs / 1000), p99Ms: percentile(latenciesMs, 99), windowMs: elapsedMs };
}

async function run(template: string, throttlePercent: number | undefined): Promise<{ load: Load; scavengeMs?: number; spaceSaved?: number }> {
  const directory = mkdtempSync(join(process.env.SVC_BENCH_DIR ?? tmpdir(), 'svcdb-bench-scavenge-'));
  cpSync(template, directory, { recursive: true });
  // Written back before the load starts: the copy's writeback would otherwise weigh on the first seconds measured.
  execFileSync('sync');
  const engine = await open(directory);
  const service = new ScavengeService({
    storage: engine, mergeChunks: true, historyMaxAgeDays: 30, nodeEndpoint: () => 'bench', logger: silentLogger,
    openScavenger: () => openNodeScavenger(engine, {
      indexPath: join(directory, 'index'), pageSizeBytes: 16 * 1024, cacheSizeBytes: 64 * MiB, hashUsersCacheCapacity: 100_000, logger: silentLogger,
    }),
  });
  try {
    if (throttlePercent === undefined) return { load: await appendLoad(engine, WINDOW_MS, () => true) };
    const started = nowMs();
    const scavengeId = await service.start({ ...DEFAULT_START_REQUEST, throttlePercent });
    const load = await appendLoad(engine, SCAVENGE_WINDOW_MS_MAX, () => service.current() !== undefined);
    while (service.current()) await new Promise((resolve) => setTimeout(resolve, 20));
    const status = service.status(scavengeId);
    const spaceSaved = status && 'spaceSaved' in status ? status.spaceSaved : 0;
    return { load, scavengeMs: nowMs() - started, spaceSaved };
  } finally {
    await service.close();
    await engine.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

export async function scavengeLoadBenchmarks(): Promise<void> {
  section(`Appends during a scavenge (${LOG_BYTES / MiB} MiB log in ${CHUNK_BYTES / MiB} MiB chunks, half removable; ${APPENDERS} appenders of single 100-byte events)`);
  const template = mkdtempSync(join(process.env.SVC_BENCH_DIR ?? tmpdir(), 'svcdb-bench-scavenge-template-'));
  try {
    await prepare(template);
    const baseline = await run(template, undefined);
    report('appends without a scavenge', baseline.load.rate, 'events/s', `p99 ${baseline.load.p99Ms.toFixed(2)} ms; baseline for the lines below`);
    for (const throttlePercent of [100, 50]) {
      const { load, scavengeMs, spaceSaved } = await run(template, throttlePercent);
      const window = `, over the ${(load.windowMs / 1000).toFixed(1)} s the scavenge ran`;
      report(`appends during a scavenge at throttlePercent ${throttlePercent}`, load.rate, 'events/s',
        `p99 ${load.p99Ms.toFixed(2)} ms, ${((load.rate / baseline.load.rate) * 100).toFixed(0)}% of without${window}`);
      report(`  the scavenge at throttlePercent ${throttlePercent}, start to end under that load`, (scavengeMs ?? 0) / 1000, 's',
        `${((spaceSaved ?? 0) / MiB).toFixed(0)} MiB reclaimed`);
    }
  } finally {
    rmSync(template, { recursive: true, force: true });
  }
}
