/**
 * Redaction benchmark: `svcdb redact` of 1,000 events spread over 4 completed chunks of 256 MiB,
 * the redactor in this process and the node a real `svcdb serve --enable-unix-socket` child, as
 * they run in production, beside a plain copy of those 4 chunk files followed by `sync` in the
 * same run (target: within 2x of the copy). The redactor has the kernel copy the chunks while it
 * reads and hashes them once (the four side by side); the node reads each copy and its original
 * once, hashing the copies the same way, to check them while the redactor hashes, and fsyncs the
 * copies meanwhile. Both hash every byte with MD5, the chunk's hash: when the copy is fast that,
 * not the I/O, sets the time, so the CPU times are printed too, and the load average, since on a
 * busy machine the copy waits for the disk while the redaction waits for a core.
 * The copy and the redaction alternate, three rounds of each (each round redacts 1,000 other
 * events of the same chunks, so each switches all four), and their medians are compared: on a
 * VM one copy can take twice the time of the next.
 * SVC_BENCH_REDACT_CHUNK_MIB makes the chunks smaller for a quick run.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { SOCKET_FILE_NAME } from '../src/storage/layout.js';
import type { EventReference } from '../src/maint/redact/events-list.js';
import { redact } from '../src/maint/redact/redact.js';
import { Engine } from '../src/storage/engine.js';
import { startServer, stop } from './http.js';
import { median, nowMs, report, section } from './measure.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

const MiB = 1024 * 1024;
const CHUNK_BYTES = Number(process.env.SVC_BENCH_REDACT_CHUNK_MIB ?? 256) * MiB;
const CHUNKS = 4;
const EVENTS_REDACTED = 1000;
const EVENT_BYTES = 16 * 1024;
const EVENTS_PER_APPEND = 64;
/** Rounds of copy then redaction, alternating; each redacts events next to the last round's. */
const ROUNDS = 3;

/** User + system CPU time of process `pid` so far, from /proc (NaN where there is none). */
function processCpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime, fields 14 and 15 of the line, in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/**
 * Times `cp` of the chunk files into a new directory of `parent`, followed by `sync`; the copy
 * is kept. The copy is measured right after the log is written, where it can take the pages the
 * writer just freed, which cost this VM less than pages it has not touched for a while (what the
 * redaction, later, gets), and before each redaction, where the redaction runs, the node up.
 */
function copyChunks(chunkFiles: readonly string[], parent: string): { ms: number; directory: string } {
  spawnSync('sync');
  const start = nowMs();
  const directory = mkdtempSync(join(parent, 'copy-'));
  const copied = spawnSync('cp', ['-t', directory, ...chunkFiles]);
  if (copied.status !== 0) throw new Error(`cp failed: ${String(copied.stderr)}`);
  spawnSync('sync');
  return { ms: nowMs() - start, directory };
}

/** The CPU time this process spends reading `files` in large blocks and hashing them with MD5. */
async function readAndHashCpuMs(files: readonly string[]): Promise<number> {
  const block = Buffer.allocUnsafe(4 * MiB);
  const before = process.cpuUsage();
  for (const file of files) {
    const handle = await open(file, 'r');
    try {
      const hash = createHash('md5');
      for (let bytesRead = 1, position = 0; bytesRead > 0; position += bytesRead) {
        ({ bytesRead } = await handle.read(block, 0, block.length, position));
        hash.update(block.subarray(0, bytesRead));
      }
      hash.digest();
    } finally {
      await handle.close();
    }
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** The first event number of chunk `chunkNumber` (a binary search over positions). */
function firstEventInChunk(engine: Engine, chunkNumber: number, eventCount: number): number {
  let low = 0;
  let high = eventCount;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (engine.eventPositions('bench', middle)[0].logPosition >= chunkNumber * CHUNK_BYTES) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** One round: a copy of the chunks the log holds now, then the redaction of `targets` in them. */
interface Round {
  copyMs: number;
  redactMs: number;
  redactorCpuMs: number;
  nodeCpuMs: number;
  steps: string;
  /** The chunk files the redaction switched in, which the next round copies. */
  switchedFiles: string[];
}

async function redactionRound(db: string, parent: string, chunkFiles: readonly string[], targets: EventReference[], nodePid: number | undefined): Promise<Round> {
  const copy = copyChunks(chunkFiles, parent);
  const nodeCpuBefore = processCpuMs(nodePid);
  const cpuBefore = process.cpuUsage();
  const start = nowMs();
  const marks: string[] = [];
  const result = await redact({ dbPath: db, events: targets, onStep: (step) => void marks.push(`${step}@${Math.round(nowMs() - start)}`) });
  const redactMs = nowMs() - start;
  const cpu = process.cpuUsage(cpuBefore);
  if (result.chunksSwitched.length !== chunkFiles.length) throw new Error(`the redaction switched ${result.chunksSwitched.length} chunks, not ${chunkFiles.length}`);
  return {
    copyMs: copy.ms, redactMs, redactorCpuMs: (cpu.user + cpu.system) / 1000, nodeCpuMs: processCpuMs(nodePid) - nodeCpuBefore,
    steps: marks.join(' '), switchedFiles: result.chunksSwitched.map((file) => join(db, file)),
  };
}

/** The medians of the rounds, each redaction beside the copy made just before it and beside the first copy. */
function reportRounds(firstCopyMs: number, rounds: readonly Round[]): void {
  const middle = (pick: (round: Round) => number) => median(rounds.map(pick));
  const copyMs = middle((round) => round.copyMs);
  const redactMs = middle((round) => round.redactMs);
  const of = `median of ${rounds.length} rounds`;
  report('redaction: cp + sync of the chunks, after the log was written', firstCopyMs, 'ms', 'baseline 1');
  report('redaction: cp + sync of the chunks, the node up, just before', copyMs, 'ms', `baseline 2, ${of}`);
  const ratios = [firstCopyMs, copyMs].map((baselineMs) => `${(redactMs / baselineMs).toFixed(2)}x`).join(' / ');
  report('redaction: svcdb redact', redactMs, 'ms', `${of}, ${EVENTS_REDACTED} events and ${CHUNKS} chunks each; ${ratios} baselines 1 / 2 (target ≤ 2x)`);
  // CPU time does not depend on what else runs on the machine: it shows what the wall time can come down to.
  report('redaction: CPU time of the redactor', middle((round) => round.redactorCpuMs), 'ms', of);
  const nodeCpuMs = middle((round) => round.nodeCpuMs);
  if (Number.isFinite(nodeCpuMs)) report('redaction: CPU time of the node', nodeCpuMs, 'ms', `${of}, checking and switching the copies`);
}

export async function redactionBenchmarks(): Promise<void> {
  section(`redaction (${EVENTS_REDACTED} events over ${CHUNKS} chunks of ${CHUNK_BYTES / MiB} MiB vs cp + sync of those chunks)`);
  const directory = mkdtempSync(join(process.env.SVC_BENCH_DIR ?? tmpdir(), 'svcdb-bench-redact-'));
  const db = join(directory, 'db');
  const logger = pino({ level: 'silent' });
  const engine = await Engine.open({ dbPath: db, indexPath: join(directory, 'index'), chunkSizeBytes: CHUNK_BYTES, verifyChunks: 'off', logger });
  try {
    let appended = 0;
    while (engine.status().chunkCount <= CHUNKS) {
      const events = Array.from({ length: EVENTS_PER_APPEND }, (_, i) => ({
        eventId: randomUUID(), eventType: 'Bench', isJson: false, metadata: Buffer.alloc(0), data: Buffer.alloc(EVENT_BYTES, (appended + i) % 251),
      }));
      await engine.append('bench', -2, events);
      appended += EVENTS_PER_APPEND;
    }
    const completed = firstEventInChunk(engine, CHUNKS, appended);
    const step = Math.max(ROUNDS, Math.floor(completed / EVENTS_REDACTED));
    const targets: EventReference[] = Array.from({ length: EVENTS_REDACTED }, (_, i) => ({ streamName: 'bench', eventNumber: i * step }));
    const chunkFiles = Array.from({ length: CHUNKS }, (_, n) => join(db, `chunk-${String(n).padStart(6, '0')}.000000`));
    await engine.close();

    const firstCopy = copyChunks(chunkFiles, directory);

    const node = await startServer([
      '--no-node-snapshot', join(root, 'bin/run.js'), 'serve', '--db', db, '--http-port', '0', '--enable-unix-socket',
      '--chunk-size', String(CHUNK_BYTES), '--verify-chunks', 'off',
    ], []);
    try {
      if (!existsSync(join(db, SOCKET_FILE_NAME))) throw new Error('the node listens without its unix socket');
      const rounds: Round[] = [];
      let activeFiles = chunkFiles;
      for (let round = 0; round < ROUNDS; round++) {
        const measured = await redactionRound(db, directory, activeFiles, targets.map(({ streamName, eventNumber }) => ({ streamName, eventNumber: eventNumber + round })), node.child.pid);
        process.stdout.write(`round ${round + 1}: cp + sync ${Math.round(measured.copyMs)} ms, svcdb redact ${Math.round(measured.redactMs)} ms (${(measured.redactMs / measured.copyMs).toFixed(2)}x); steps (ms from the start): ${measured.steps}\n`);
        rounds.push(measured);
        activeFiles = measured.switchedFiles;
      }
      reportRounds(firstCopy.ms, rounds);
      const hashCpuMs = await readAndHashCpuMs(chunkFiles.map((file) => join(firstCopy.directory, basename(file))));
      report('redaction: CPU time of one read + MD5 of the chunks', hashCpuMs, 'ms', 'one chunk after another with OpenSSL; the redactor and the node hash four side by side');
      process.stdout.write(`load average (1, 5, 15 min) at the end, on ${availableParallelism()} cores: ${loadavg().map((load) => load.toFixed(2)).join(', ')}\n`);
    } finally {
      await stop(node);
    }
  } finally {
    await engine.close().catch(() => undefined);
    rmSync(directory, { recursive: true, force: true });
  }
}
