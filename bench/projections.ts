/**
 * Projections benchmark, all in one run on one machine:
 * - events/s processed by `$by_category` and by a user `fromAll().when({$any: count})` projection
 *   over a log of 1M events, beside a plain read of `$all` over the same events, the median of
 *   three reads before, between and after the projections (targets: 30% and 20% of the read rate);
 * - appends/s with the five standard projections running, beside the same load on a node without
 *   them, three loads of each alternating and their medians compared (target: 70%), and how far
 *   the projections fell behind a load and how long they took to catch up after it.
 * SVC_BENCH_PROJECTION_EVENTS makes the log smaller for a quick run; SVC_BENCH_DIR picks the disk.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ProjectionsService } from '../src/daemon/projections/projections-service.js';
import { SYSTEM_PROJECTIONS } from '../src/daemon/projections/system-projections.js';
import { Engine } from '../src/storage/engine.js';
import type { NewEvent } from '../src/storage/streams/write-types.js';
import { median, nowMs, report, runFor, section } from './measure.js';

const EVENTS = Number(process.env.SVC_BENCH_PROJECTION_EVENTS ?? 1_000_000);
const BATCH = 100;
const STREAMS = 1000;
const APPEND_MS = 5000;
const APPENDERS = 16;
const ADMIN = { name: 'admin', groups: ['$admins'] };
const logger = pino({ level: 'silent' });

function events(count: number, seed: number): NewEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    eventId: randomUUID(), eventType: `Type${(seed + i) % 7}`, isJson: true, metadata: Buffer.alloc(0),
    data: Buffer.from(`{"n":${seed + i},"note":"a small event body of some forty bytes"}`),
  }));
}

async function openEngine(directory: string): Promise<Engine> {
  return Engine.open({ dbPath: join(directory, 'db'), indexPath: join(directory, 'index'), verifyChunks: 'off', logger });
}

async function fillLog(engine: Engine): Promise<void> {
  for (let written = 0; written < EVENTS; written += BATCH) {
    const stream = `cat${(written / BATCH) % 10}-${(written / BATCH) % STREAMS}`;
    await engine.append(stream, -2, events(Math.min(BATCH, EVENTS - written), written));
  }
}

/** Events/s of a plain read of `$all` up to `end`. */
function readAllRate(engine: Engine, end: number): number {
  const started = nowMs();
  let read = 0;
  for (let position = 0; position < end;) {
    const page = engine.readAllForward(position, 500);
    read += page.events.length;
    if (page.isEnd || page.events.length === 0) break;
    position = page.nextPosition;
  }
  return read / ((nowMs() - started) / 1000);
}

/** Starts one projection and times it from its start until it has processed the whole log. */
async function projectionRate(engine: Engine, service: ProjectionsService, name: string, start: () => Promise<void>): Promise<number> {
  const end = engine.status().readableEnd;
  const started = nowMs();
  await start();
  for (;;) {
    const projection = service.get(ADMIN, name);
    if (projection.status === 'Faulted') throw new Error(`${name} faulted: ${projection.stateReason}`);
    if (projection.positions.next >= end) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const elapsedMs = nowMs() - started;
  await service.command(ADMIN, name, 'disable', false);
  return EVENTS / (elapsedMs / 1000);
}

const thousands = (rates: readonly number[]) => rates.map((rate) => `${Math.round(rate / 1000).toLocaleString('en-US')}k`).join(', ');

async function processingBenchmarks(directory: string): Promise<void> {
  const engine = await openEngine(directory);
  const service = new ProjectionsService(engine, {
    runProjections: 'All', startStandardProjections: false, projectionExecutionTimeout: 250, projectionMemoryLimitMb: 128,
  }, logger);
  try {
    await fillLog(engine);
    await service.start();
    // The same events are read before, between and after the projections, and the median is the
    // baseline: the speed of this machine drifts within a run, and one read would carry that.
    const logEnd = engine.status().readableEnd;
    const reads = [readAllRate(engine, logEnd)];
    const byCategory = await projectionRate(engine, service, '$by_category', () => service.command(ADMIN, '$by_category', 'enable', false));
    reads.push(readAllRate(engine, logEnd));
    const count = await projectionRate(engine, service, 'count', async () => {
      await service.create(ADMIN, {
        mode: 'Continuous', name: 'count', enabled: true, emit: false, checkpoints: true, trackEmittedStreams: false,
        query: 'fromAll().when({$init: function(){ return {count: 0}; }, $any: function(s, e){ s.count++; }})',
      });
    });
    reads.push(readAllRate(engine, logEnd));
    const readRate = median(reads);
    report('read $all', readRate, 'events/s', `baseline: the median of ${thousands(reads)}, read before, between and after`);
    report('$by_category', byCategory, 'events/s', `${((byCategory / readRate) * 100).toFixed(1)}% of the read; target 30%`);
    report('fromAll().when({$any: count})', count, 'events/s', `${((count / readRate) * 100).toFixed(1)}% of the read; target 20%`);
  } finally {
    await service.close();
    await engine.close();
  }
}

interface AppendLoad {
  rate: number;
  /** How far the furthest-behind projection was when the load ended, and how long it took to catch up. */
  behindBytes: number;
  catchUpMs: number;
}

/** Projections give way to a saturating write load (background consumers) and catch up after it. */
async function caughtUp(engine: Engine): Promise<{ behindBytes: number; catchUpMs: number }> {
  const behind = () => engine.stats().consumers.reduce((most, consumer) => Math.max(most, consumer.behindBytes), 0);
  const behindBytes = behind();
  const started = nowMs();
  while (behind() > 0) {
    if (nowMs() - started > 120_000) throw new Error('the projections did not catch up within two minutes');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { behindBytes, catchUpMs: nowMs() - started };
}

async function appendRate(directory: string, withProjections: boolean): Promise<AppendLoad> {
  const engine = await openEngine(directory);
  const service = withProjections
    ? new ProjectionsService(engine, { runProjections: 'All', startStandardProjections: true, projectionExecutionTimeout: 250, projectionMemoryLimitMb: 128 }, logger)
    : undefined;
  try {
    await service?.start();
    let appended = 0;
    const { elapsedMs } = await runFor(APPEND_MS, APPENDERS, async (loop, i) => {
      await engine.append(`cat${loop % 10}-${loop}-${i % 50}`, -2, events(10, appended));
      appended += 10;
    });
    if (service) for (const name of SYSTEM_PROJECTIONS) if (service.get(ADMIN, name).status !== 'Running') throw new Error(`${name} is not running`);
    const rate = appended / (elapsedMs / 1000);
    return { rate, ...(service ? await caughtUp(engine) : { behindBytes: 0, catchUpMs: 0 }) };
  } finally {
    await service?.close();
    await engine.close();
  }
}

export async function projectionsBenchmarks(): Promise<void> {
  section(`projections (${EVENTS.toLocaleString('en-US')} events in ${STREAMS} streams of 10 categories)`);
  const root = mkdtempSync(join(process.env.SVC_BENCH_DIR ?? tmpdir(), 'svcdb-bench-projections-'));
  try {
    await processingBenchmarks(join(root, 'processing'));
    // Loads with and without the projections alternate, three of each, and medians are compared:
    // the speed of this machine drifts within a run, and one load of each would carry that.
    const without: number[] = [];
    const withStandard: AppendLoad[] = [];
    for (let round = 0; round < 3; round++) {
      without.push((await appendRate(join(root, `plain-${round}`), false)).rate);
      withStandard.push(await appendRate(join(root, `standard-${round}`), true));
    }
    const baseline = median(without);
    const rates = withStandard.map((load) => load.rate);
    const rate = median(rates);
    report('appends, no projections', baseline, 'events/s', `${APPENDERS} appenders of 10 events, baseline: the median of ${thousands(without)}`);
    report('appends, standard projections running', rate, 'events/s', `the median of ${thousands(rates)}: ${((rate / baseline) * 100).toFixed(1)}% of the baseline; target 70%`);
    const behindMiB = Math.max(...withStandard.map((load) => load.behindBytes)) / (1024 * 1024);
    const catchUpS = Math.max(...withStandard.map((load) => load.catchUpMs)) / 1000;
    report('  the projections, behind when a load ended (most)', behindMiB, 'MiB', `caught up ${catchUpS.toFixed(1)} s later at most`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
