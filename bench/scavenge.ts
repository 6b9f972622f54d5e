/**
 * Scavenge benchmark: a log of SVC_BENCH_SCAVENGE_MIB (default 2048) MiB in chunks of
 * SVC_BENCH_SCAVENGE_CHUNK_MIB (default 256) MiB, where half the events are removable (hard
 * deleted streams, and streams whose $maxAge has passed at the point's EffectiveNow). Figures:
 * the bytes of chunks rewritten per second by chunk execution, beside `cp` + `sync` of the same
 * chunk files in the same run (target ≥ 50% of the copy), and the accumulation time of a first
 * scavenge and of a second, incremental one (which reads only the chunks written since).
 * SVC_BENCH_SCAVENGE_THREADS (default 1) sets the threads of chunk execution.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseChunkFileName } from '../src/storage/log/chunk-format.js';
import { Engine } from '../src/storage/engine.js';
import { openScavenger } from '../src/storage/maintenance/scavenge/scavenger.js';
import type { ScavengePoint, ScavengeStage } from '../src/storage/maintenance/scavenge/types.js';
import type { NewEvent } from '../src/storage/streams/write-types.js';
import { nowMs, report, section } from './measure.js';

const MiB = 1024 * 1024;
const LOG_BYTES = Number(process.env.SVC_BENCH_SCAVENGE_MIB ?? 2048) * MiB;
const CHUNK_BYTES = Number(process.env.SVC_BENCH_SCAVENGE_CHUNK_MIB ?? 256) * MiB;
const EVENT_BYTES = 4 * 1024;
const EVENTS_PER_APPEND = 32;
const STREAM_PAIRS = 64;
const HOUR_MS = 3600 * 1000;
const THREADS = Number(process.env.SVC_BENCH_SCAVENGE_THREADS ?? 1);

function events(count: number, fill: number): NewEvent[] {
  return Array.from({ length: count }, () => ({
    eventId: randomUUID(), eventType: 'Bench', isJson: false, metadata: Buffer.alloc(0), data: Buffer.alloc(EVENT_BYTES, fill),
  }));
}

/** Appends to kept and removable streams in turn until the log holds `bytes`. */
async function fill(engine: Engine, bytes: number, round: number): Promise<void> {
  for (let append = 0; engine.status().readableEnd < bytes; append++) {
    const pair = append % STREAM_PAIRS;
    const removable = append % 2 === 1;
    await engine.append(`${removable ? 'gone' : 'kept'}-${round}-${pair}`, -2, events(EVENTS_PER_APPEND, append % 251));
  }
}

/** Half the removable streams are hard deleted, the others expire. */
async function makeRemovable(engine: Engine, round: number): Promise<void> {
  for (let pair = 0; pair < STREAM_PAIRS; pair++) {
    const stream = `gone-${round}-${pair}`;
    if (pair % 2 === 0) await engine.deleteStream(stream, -2, true);
    else await engine.setStreamMetadata(stream, -2, { $maxAge: 3600 });
  }
}

async function writePoint(engine: Engine, number: number, clockMs: number): Promise<ScavengePoint> {
  const written = await engine.append('$scavengePoints', -2, [{ eventId: randomUUID(), eventType: '$scavengePoint', isJson: true, metadata: Buffer.alloc(0), data: Buffer.from('{"threshold":0}') }]);
  await engine.completeActiveChunk();
  return { number, position: written.logPosition, effectiveNowMs: clockMs, threshold: 0 };
}

function chunkFiles(db: string): string[] {
  return readdirSync(db).filter((name) => parseChunkFileName(name)).sort().map((name) => join(db, name));
}

interface RunFigures {
  stageMs: Map<ScavengeStage, number>;
  /** CPU time of this process per stage (user + system): below the wall time when it waits on the disk or other processes. */
  stageCpuMs: Map<ScavengeStage, number>;
  bytesRewritten: number;
  chunksRewritten: number;
  spaceSaved: number;
}

async function scavenge(engine: Engine, index: string, point: ScavengePoint): Promise<RunFigures> {
  const scavenger = openScavenger(engine, { path: join(index, 'scavenging', 'scavenging.db'), pageSizeBytes: 16 * 1024, cacheSizeBytes: 64 * MiB, hashUsersCacheCapacity: 100_000 });
  const stageMs = new Map<ScavengeStage, number>();
  const stageCpuMs = new Map<ScavengeStage, number>();
  let current: { stage: ScavengeStage; since: number; cpu: NodeJS.CpuUsage } | undefined;
  const figures: RunFigures = { stageMs, stageCpuMs, bytesRewritten: 0, chunksRewritten: 0, spaceSaved: 0 };
  const files = new Map(engine.scavengeAccess().chunkFiles().map((file) => [file.startNumber, file.fileBytes]));
  const mark = (stage?: ScavengeStage) => {
    const now = nowMs();
    if (current) {
      stageMs.set(current.stage, now - current.since);
      const cpu = process.cpuUsage(current.cpu);
      stageCpuMs.set(current.stage, (cpu.user + cpu.system) / 1000);
    }
    current = stage ? { stage, since: now, cpu: process.cpuUsage() } : undefined;
  };
  try {
    const outcome = await scavenger.run({
      point, threads: THREADS, throttlePercent: 100, mergeChunks: true, signal: new AbortController().signal,
      observer: {
        stageStarted: mark,
        chunkExecuted: (executed) => {
          if (!executed.wasScavenged) return;
          figures.bytesRewritten += files.get(executed.chunkStartNumber) ?? 0;
          figures.chunksRewritten++;
        },
      },
    });
    mark();
    figures.spaceSaved = outcome.spaceSaved;
    return figures;
  } finally {
    scavenger.close();
  }
}

export async function scavengeBenchmarks(): Promise<void> {
  section(`scavenge (${LOG_BYTES / MiB} MiB log in ${CHUNK_BYTES / MiB} MiB chunks, half removable, ${THREADS} thread(s), vs cp + sync of the same chunks)`);
  const directory = mkdtempSync(join(process.env.SVC_BENCH_DIR ?? tmpdir(), 'svcdb-bench-scavenge-'));
  const db = join(directory, 'db');
  const index = join(directory, 'index');
  let clockMs = Date.UTC(2024, 0, 1);
  const engine = await Engine.open({ dbPath: db, indexPath: index, chunkSizeBytes: CHUNK_BYTES, verifyChunks: 'off', clock: () => clockMs });
  try {
    const writeStart = nowMs();
    await fill(engine, LOG_BYTES, 0);
    await makeRemovable(engine, 0);
    clockMs += 2 * HOUR_MS;
    const first = await writePoint(engine, 0, clockMs);
    process.stdout.write(`wrote ${(engine.status().readableEnd / MiB).toFixed(0)} MiB in ${((nowMs() - writeStart) / 1000).toFixed(1)} s\n`);

    const completed = chunkFiles(db).slice(0, -1);
    spawnSync('sync');
    const copyStart = nowMs();
    const copied = spawnSync('cp', ['-t', mkdtempSync(join(directory, 'copy-')), ...completed]);
    if (copied.status !== 0) throw new Error(`cp failed: ${String(copied.stderr)}`);
    spawnSync('sync');
    const copyMs = nowMs() - copyStart;
    rmSync(join(directory, readdirSync(directory).find((name) => name.startsWith('copy-'))!), { recursive: true, force: true });
    const copiedBytes = completed.length * CHUNK_BYTES;

    const run1 = await scavenge(engine, index, first);
    const executeMs = run1.stageMs.get('ExecutingChunks') ?? NaN;
    const copyRate = copiedBytes / MiB / (copyMs / 1000);
    const rewriteRate = run1.bytesRewritten / MiB / (executeMs / 1000);
    report('scavenge: cp + sync of the chunks (baseline)', copyRate, 'MiB/s', `${completed.length} chunks in ${Math.round(copyMs)} ms`);
    report('scavenge: chunk execution, bytes of chunks rewritten', rewriteRate, 'MiB/s',
      `${run1.chunksRewritten} chunks in ${Math.round(executeMs)} ms, ${Math.round(run1.stageCpuMs.get('ExecutingChunks') ?? NaN)} ms of CPU; ${((rewriteRate / copyRate) * 100).toFixed(0)}% of the copy (target ≥ 50%)`);
    report('scavenge: first scavenge, accumulation', run1.stageMs.get('Accumulating') ?? NaN, 'ms', `${(first.position / MiB).toFixed(0)} MiB read`);
    const stages = [...run1.stageMs].map(([stage, ms]) => `${stage} ${Math.round(ms)}`).join(', ');
    report('scavenge: first scavenge, space saved', run1.spaceSaved / MiB, 'MiB', `stages (ms): ${stages}`);

    const secondFrom = engine.status().readableEnd;
    await fill(engine, secondFrom + Math.max(CHUNK_BYTES, LOG_BYTES / 8), 1);
    const second = await writePoint(engine, 1, clockMs);
    const run2 = await scavenge(engine, index, second);
    report('scavenge: second scavenge, accumulation (incremental)', run2.stageMs.get('Accumulating') ?? NaN, 'ms', `${((second.position - secondFrom) / MiB).toFixed(0)} MiB new`);
  } finally {
    await engine.close();
    rmSync(directory, { recursive: true, force: true });
  }
}
