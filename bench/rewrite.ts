/**
 * Chunk rewrite benchmark: `engine.rewriteChunks` of 4 completed chunks of 64 MiB one by one,
 * keeping every other record (what a scavenge does to a chunk), beside a plain copy of those
 * chunk files followed by `sync` in the same run (target: at least half the copy's speed). Each
 * rewrite writes, hashes and fsyncs the new file, then checks it (hash and every record) before
 * switching it in. SVC_BENCH_REWRITE_CHUNK_MIB changes the chunk size.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Engine } from '../src/storage/engine.js';
import { nowMs, report, section } from './measure.js';

const MiB = 1024 * 1024;
const CHUNK_BYTES = Number(process.env.SVC_BENCH_REWRITE_CHUNK_MIB ?? 64) * MiB;
const CHUNKS = 4;
const EVENT_BYTES = 4 * 1024;
const EVENTS_PER_APPEND = 256;

function openAt(directory: string): Promise<Engine> {
  return Engine.open({
    dbPath: join(directory, 'db'), indexPath: join(directory, 'index'), chunkSizeBytes: CHUNK_BYTES, verifyChunks: 'off',
    cachedChunksMax: 0, logger: pino({ level: 'silent' }),
  });
}

export async function rewriteBenchmarks(): Promise<void> {
  section(`chunk rewrite (${CHUNKS} chunks of ${CHUNK_BYTES / MiB} MiB keeping every other record vs cp + sync of those chunks)`);
  const directory = mkdtempSync(join(process.env.SVC_BENCH_DIR ?? tmpdir(), 'svcdb-bench-rewrite-'));
  try {
    const engine = await openAt(directory);
    for (let appended = 0; engine.status().chunkCount <= CHUNKS; appended += EVENTS_PER_APPEND) {
      await engine.append('bench', -2, Array.from({ length: EVENTS_PER_APPEND }, (_, i) => ({
        eventId: randomUUID(), eventType: 'Bench', isJson: false, metadata: Buffer.alloc(0), data: Buffer.alloc(EVENT_BYTES, (appended + i) % 251),
      })));
    }
    await engine.close();
    const chunkFiles = Array.from({ length: CHUNKS }, (_, n) => join(directory, 'db', `chunk-${String(n).padStart(6, '0')}.000000`));

    spawnSync('sync');
    const copyStart = nowMs();
    const copied = spawnSync('cp', ['-t', mkdtempSync(join(directory, 'copy-')), ...chunkFiles]);
    if (copied.status !== 0) throw new Error(`cp failed: ${String(copied.stderr)}`);
    spawnSync('sync');
    const copyMs = nowMs() - copyStart;

    const reopened = await openAt(directory);
    try {
      let seen = 0;
      const cpuBefore = process.cpuUsage();
      const start = nowMs();
      for (let n = 0; n < CHUNKS; n++) await reopened.rewriteChunks(n, n, () => seen++ % 2 === 0);
      const rewriteMs = nowMs() - start;
      const cpu = process.cpuUsage(cpuBefore);
      report('chunk rewrite: cp + sync of the chunks (baseline)', copyMs, 'ms');
      report('chunk rewrite: engine.rewriteChunks, one chunk at a time', rewriteMs, 'ms',
        `${((copyMs / rewriteMs) * 100).toFixed(0)}% of the copy's speed (target ≥ 50%)`);
      // CPU time does not depend on what else runs on the machine: it shows what the wall time can come down to.
      report('chunk rewrite: CPU time', (cpu.user + cpu.system) / 1000, 'ms');
    } finally {
      await reopened.close();
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
