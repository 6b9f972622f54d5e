/**
 * Replication benchmark: a new read-only replica catching up with a leader that holds 1 GiB of
 * chunks, beside `cp -r` of the leader's db folder followed by `sync -f` in the same run (the
 * replica fsyncs every chunk it installs). Target: at least 50% of cp's speed.
 *
 * Leader and replica are first nodes composed as `svcdb serve` composes them, in this process,
 * on loopback, then `svcdb serve` processes of their own. The leader's log is built with large events in big appends before the leader starts.
 * Copies and catch-ups alternate, three times each, each into a new directory; the medians are
 * compared. Both read the leader's chunks from the page cache after the first round.
 */
import { execaSync } from 'execa';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { Daemon } from '../src/daemon/daemon.js';
import { daemonOptions } from '../src/daemon/options.js';
import { Engine } from '../src/storage/engine.js';
import { readInt64 } from '../src/storage/log/int64.js';
import type { NewEvent } from '../src/storage/streams/write-types.js';
import { startServer, stop } from './http.js';
import { median, nowMs, report, section } from './measure.js';

const MiB = 1024 * 1024;
const LOG_BYTES = Number(process.env.SVC_BENCH_REPLICATION_MIB ?? 1024) * MiB;
const EVENT_BYTES = MiB;
const EVENTS_PER_APPEND = 15;
const ROUNDS = 3;
/** How often the catch-up is looked at; far below its duration. */
const POLL_MS = 5;

const silent = pino({ level: 'silent' });
const root = fileURLToPath(new URL('../..', import.meta.url));
const openStorage = (options: Parameters<typeof Engine.open>[0]) => Engine.open(options);

/** A node's writer.chk read from outside it; -1 before the node made it. */
export function writerCheckpoint(db: string): number {
  try {
    return readInt64(readFileSync(join(db, 'writer.chk')), 0);
  } catch {
    return -1;
  }
}

async function buildLog(db: string, index: string): Promise<number> {
  const engine = await Engine.open({ dbPath: db, indexPath: index, verifyChunks: 'off' });
  for (let batch = 0; engine.status().readableEnd < LOG_BYTES; batch++) {
    const events: NewEvent[] = Array.from({ length: EVENTS_PER_APPEND }, (_, i) => ({
      eventId: randomUUID(), eventType: 'BenchBlob', data: Buffer.alloc(EVENT_BYTES, (batch + i) % 251), metadata: Buffer.alloc(0), isJson: false,
    }));
    await engine.append(`blobs-${batch % 16}`, -2, events);
  }
  const { readableEnd } = engine.status();
  await engine.close();
  return readableEnd;
}

/** Milliseconds from the replica's start until its writer.chk is the leader's. */
async function catchUp(directory: string, leaderUrl: string, end: number): Promise<number> {
  const db = join(directory, 'db');
  const start = nowMs();
  const replica = await Daemon.start(daemonOptions({ db, index: join(directory, 'index'), httpPort: 0, replicaOf: leaderUrl, verifyChunks: 'off' }, directory), {
    logger: silent, version: 'bench', openStorage,
  });
  while (writerCheckpoint(db) < end) await sleep(POLL_MS);
  const elapsed = nowMs() - start;
  await replica.stop();
  return elapsed;
}

/** The same as `catchUp`, with the replica a `svcdb serve` process of its own. */
async function catchUpAsProcess(directory: string, leaderUrl: string, end: number): Promise<number> {
  const db = join(directory, 'db');
  const start = nowMs();
  const replica = await startServer(['--no-node-snapshot', join(root, 'bin/run.js'), 'serve', '--db', db, '--index', join(directory, 'index'),
    '--http-port', '0', '--replica-of', leaderUrl, '--verify-chunks', 'off'], []);
  while (writerCheckpoint(db) < end) await sleep(POLL_MS);
  const elapsed = nowMs() - start;
  await stop(replica);
  return elapsed;
}

function copy(from: string, to: string): number {
  const start = nowMs();
  execaSync('cp', ['-r', from, to]);
  execaSync('sync', ['-f', to]);
  return nowMs() - start;
}

export async function replicationBenchmarks(): Promise<void> {
  section(`replication (a new replica catching up with ${LOG_BYTES / MiB} MiB vs cp -r + sync)`);
  const directory = mkdtempSync(join(process.env.SVC_BENCH_DIR ?? tmpdir(), 'svcdb-bench-replication-'));
  try {
    const leaderDb = join(directory, 'leader', 'db');
    const end = await buildLog(leaderDb, join(directory, 'leader', 'index'));
    const leader = await Daemon.start(daemonOptions({ db: leaderDb, index: join(directory, 'leader', 'index'), httpPort: 0, verifyChunks: 'off' }, directory), {
      logger: silent, version: 'bench', openStorage,
    });
    const leaderUrl = `http://127.0.0.1:${leader.address.port}`;
    const copies: number[] = [];
    const catchUps: number[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        copies.push(copy(leaderDb, join(directory, `copy-${round}`)));
        rmSync(join(directory, `copy-${round}`), { recursive: true, force: true });
        catchUps.push(await catchUp(join(directory, `replica-${round}`), leaderUrl, end));
        rmSync(join(directory, `replica-${round}`), { recursive: true, force: true });
      }
    } finally {
      await leader.stop();
    }
    // Then leader and replica as processes of their own, so that neither waits for the other's event loop.
    const childLeader = await startServer(['--no-node-snapshot', join(root, 'bin/run.js'), 'serve', '--db', leaderDb, '--index', join(directory, 'leader', 'index'),
      '--http-port', '0', '--verify-chunks', 'off'], []);
    const processCatchUps: number[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        processCatchUps.push(await catchUpAsProcess(join(directory, `replica-process-${round}`), childLeader.url, end));
        rmSync(join(directory, `replica-process-${round}`), { recursive: true, force: true });
      }
    } finally {
      await stop(childLeader);
    }
    const copyRate = end / MiB / (median(copies) / 1000);
    const catchUpRate = end / MiB / (median(catchUps) / 1000);
    const processRate = end / MiB / (median(processCatchUps) / 1000);
    report('replication: cp -r + sync of the leader\'s db', copyRate, 'MiB/s', `median of ${ROUNDS}`);
    report('replication: a new replica catching up, one process', catchUpRate, 'MiB/s', `median of ${ROUNDS}, ${(100 * catchUpRate / copyRate).toFixed(0)}% of cp (target 50%)`);
    report('replication: a new replica catching up, two processes', processRate, 'MiB/s', `median of ${ROUNDS}, ${(100 * processRate / copyRate).toFixed(0)}% of cp (target 50%)`);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
