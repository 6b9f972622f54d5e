/**
 * Backup benchmarks: a full backup of a node holding 2 GiB of chunks beside `cp -r` of the same
 * two folders in the same run (target: at least 80% of cp's speed), and a differential backup of
 * the unchanged node (target: under one second).
 *
 * The node is built in-process with large events in big appends and then stopped, so the copies
 * measure copying (a running node adds at most one chaser interval of waiting). cp and backup
 * alternate, five times each; the fastest and the median round of each are compared with the
 * same statistic of the baseline. Both read the source from the page cache after the first round. svcdb backup fsyncs every file it writes and cp does not, so each
 * is compared with its like: the default backup with cp followed by `sync -f` on its copy, and
 * `backup --no-sync` with cp alone.
 */
import { execaSync } from 'execa';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backup } from '../src/maint/backup/backup.js';
import { Engine } from '../src/storage/engine.js';
import type { NewEvent } from '../src/storage/streams/write-types.js';
import { median, nowMs, report, section } from './measure.js';

const MiB = 1024 * 1024;
const NODE_BYTES = Number(process.env.SVC_BENCH_BACKUP_MIB ?? 2048) * MiB;
const EVENT_BYTES = MiB;
const EVENTS_PER_APPEND = 15;
const ROUNDS = 5;

function scratchDirectory(): string {
  return mkdtempSync(join(process.env.SVC_BENCH_DIR ?? tmpdir(), 'svcdb-bench-backup-'));
}

function bigEvent(index: number): NewEvent {
  const data = Buffer.alloc(EVENT_BYTES, index % 251);
  return { eventId: randomUUID(), eventType: 'BenchBlob', data, metadata: Buffer.alloc(0), isJson: false };
}

/** A stopped node with NODE_BYTES of log; returns its chunk count. */
async function buildNode(db: string, index: string): Promise<number> {
  const engine = await Engine.open({ dbPath: db, indexPath: index, verifyChunks: 'off' });
  const start = nowMs();
  for (let batch = 0; engine.status().readableEnd < NODE_BYTES; batch++) {
    await engine.append(`blobs-${batch % 16}`, -2, Array.from({ length: EVENTS_PER_APPEND }, (_, i) => bigEvent(batch + i)));
  }
  const { readableEnd, chunkCount } = engine.status();
  await engine.close();
  report('backup: built a node (stopped afterwards)', readableEnd / MiB, 'MiB', `${chunkCount} chunks of 256 MiB in ${((nowMs() - start) / 1000).toFixed(1)} s`);
  return chunkCount;
}

function timeCommand(command: string, args: string[]): number {
  const start = nowMs();
  const result = execaSync(command, args, { stdio: 'inherit', reject: false });
  if (result.exitCode !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.exitCode ?? result.signal}`);
  return nowMs() - start;
}

export async function backupBenchmarks(): Promise<void> {
  section('backup (2 GiB node, in-process svcdb backup vs cp -r)');
  const directory = scratchDirectory();
  const source = { db: join(directory, 'node', 'db'), index: join(directory, 'node', 'index') };
  await buildNode(source.db, source.index);
  const bytes = Number(execaSync('du', ['-sb', join(directory, 'node')]).stdout.split('\t')[0]);
  const copy = join(directory, 'copy');
  const destination = join(directory, 'backup');

  // Each timed copy starts with no dirty pages left by the one before (an untimed sync).
  const settle = () => {
    rmSync(copy, { recursive: true, force: true });
    rmSync(destination, { recursive: true, force: true });
    execaSync('sync');
  };
  const runs: Record<'cp' | 'cpSync' | 'backup' | 'unsynced', number[]> = { cp: [], cpSync: [], backup: [], unsynced: [] };
  const timed = async (name: keyof typeof runs, work: () => unknown) => {
    settle();
    const start = nowMs();
    await work();
    runs[name].push(nowMs() - start);
  };
  for (let round = 0; round < ROUNDS; round++) {
    await timed('cp', () => timeCommand('cp', ['-r', join(directory, 'node'), copy]));
    await timed('cpSync', () => {
      timeCommand('cp', ['-r', join(directory, 'node'), copy]);
      timeCommand('sync', ['-f', copy]);
    });
    await timed('backup', () => backup({ ...source, destination, differential: false }));
    await timed('unsynced', () => backup({ ...source, destination, differential: false, sync: false }));
  }
  settle();
  await backup({ ...source, destination, differential: false });
  // The disk's writeback state swings single copies by several times, cp's most of all: the best
  // round and the median round are both shown, each compared with the same statistic of its baseline.
  const best = (name: keyof typeof runs) => Math.min(...runs[name]);
  const middle = (name: keyof typeof runs) => median(runs[name]);
  const rate = (ms: number) => bytes / MiB / (ms / 1000);
  const rounds = (name: keyof typeof runs) => runs[name].map((ms) => (ms / 1000).toFixed(2)).join(' / ');
  const share = (baseline: keyof typeof runs, name: keyof typeof runs) =>
    `${((best(baseline) / best(name)) * 100).toFixed(0)}% best to best, ${((middle(baseline) / middle(name)) * 100).toFixed(0)}% median to median`;
  report('baseline: cp -r of db and index', rate(best('cp')), 'MiB/s', `best round; ${(bytes / MiB).toFixed(0)} MiB, no fsync; rounds ${rounds('cp')} s`);
  report('baseline: cp -r of db and index, then sync -f', rate(best('cpSync')), 'MiB/s', `best round; rounds ${rounds('cpSync')} s`);
  report('full backup into a folder (every file fsynced)', rate(best('backup')), 'MiB/s',
    `best round; rounds ${rounds('backup')} s; of cp -r + sync: ${share('cpSync', 'backup')} (target 80%); of cp -r: ${share('cp', 'backup')}`);
  report('full backup into a folder, --no-sync', rate(best('unsynced')), 'MiB/s',
    `best round; rounds ${rounds('unsynced')} s; of cp -r: ${share('cp', 'unsynced')} (target 80%)`);

  const differentialStart = nowMs();
  const differential = await backup({ ...source, destination, differential: true });
  const differentialMs = nowMs() - differentialStart;
  report('differential backup of the unchanged node', differentialMs / 1000, 's',
    `${differential.filesCopied} files, ${(differential.bytesCopied / MiB).toFixed(1)} MiB copied (the last chunk's data, checkpoints, indexmap); ${differential.filesSkipped} kept; target < 1 s`);
  settle();
  const archiveStart = nowMs();
  const archived = await backup({ ...source, archive: join(directory, 'node.tar.gz'), differential: false });
  const archiveMs = nowMs() - archiveStart;
  report('full backup into a .tar.gz archive (gzip level 1)', rate(archiveMs), 'MiB/s',
    `${(archiveMs / 1000).toFixed(2)} s, archive ${((archived.archiveBytes ?? 0) / MiB).toFixed(0)} MiB (the bench's events are one repeated byte)`);
  rmSync(directory, { recursive: true, force: true });
}
