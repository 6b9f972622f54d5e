/**
 * `npm run bench -- cold-reads`: do cold reads stall appends? A log of SVC_BENCH_COLD_GIB GiB is
 * built once, a `svcdb serve` node opens it on its own core, and rounds alternate: 10 clients
 * appending single events alone ("quiet"), then the same appends while four readers scan the
 * log from its start ("scans"). Before each round every file of the database is dropped from the
 * page cache, so the readers' reads go to the disk. The figure is the appends' p99 with the scans
 * beside it without (target: at most 2×). Only run when named: it needs disk and minutes.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinning, startServer, stop, type Server } from '../http.js';
import { nowMs, percentile, report, runFor, section } from '../measure.js';
import { scratchDirectory } from '../peers/child.js';
import { mainThreadSeconds, treeCpuSeconds } from '../peers/process-cpu.js';
import { open } from '../peers/svcdb.js';
import { reportMedians, reportRound, type RoundKind, type RoundResult } from './figures.js';
import { buildLog, checkFreeSpace, GiB, type ColdLog } from './log-build.js';
import { checkDrop, dropPageCache, fillPageCache } from './page-cache.js';
import { readerNames } from './scanners.js';
import { startScanProcess } from './scan-process.js';

const LOG_BYTES = Math.round(Number(process.env.SVC_BENCH_COLD_GIB ?? 2) * GiB);
const ROUNDS = Number(process.env.SVC_BENCH_ROUNDS ?? 3);
const ROUND_MS = Number(process.env.SVC_BENCH_COLD_SECONDS ?? 10) * 1000;
/**
 * The control: a third round in each turn, the same scans on a log read into the page cache
 * first, which tells what the readers' work costs the appends from what their waits cost.
 */
const KINDS: readonly RoundKind[] = process.env.SVC_BENCH_COLD_WARM === '1' ? ['quiet', 'scans', 'warm scans'] : ['quiet', 'scans'];
const APPENDERS = 10;
const WARM_UP_MS = 1000;
const root = fileURLToPath(new URL('../../..', import.meta.url));
const MiB = 1024 * 1024;

/** What every round works on. */
interface Setting {
  node: Server;
  /** The database's and the index's directories: the files dropped from the page cache. */
  directories: string[];
  log: ColdLog;
  readers: string[];
}

/** One round: the cache dropped (or filled), the readers started (scans only), the appends measured. */
async function round({ node, directories, log, readers }: Setting, kind: RoundKind, number: number): Promise<RoundResult> {
  if (kind === 'warm scans') fillPageCache(directories);
  else dropPageCache(directories);
  const session = open(node.url, { kind: 'single', clients: APPENDERS });
  const scans = kind !== 'quiet' ? await startScanProcess(readers, node.url, `${kind.replace(' ', '-')}-${number}`, log.eventsPerStream) : undefined;
  const cpuBefore = treeCpuSeconds(node.child.pid!);
  const loopBefore = mainThreadSeconds(node.child.pid!);
  const loadBefore = process.cpuUsage();
  const generatorBefore = mainThreadSeconds(process.pid);
  const { latenciesMs, elapsedMs } = await runFor(ROUND_MS, APPENDERS, (client) => session.send(client));
  const serverSeconds = treeCpuSeconds(node.child.pid!) - cpuBefore;
  const loop = mainThreadSeconds(node.child.pid!);
  const load = process.cpuUsage(loadBefore);
  const generator = mainThreadSeconds(process.pid);
  const scanned = (await scans?.stop()) ?? new Map<string, number>();
  await session.close();
  const seconds = elapsedMs / 1000;
  return {
    kind,
    appendsPerSecond: latenciesMs.length / seconds,
    p50Ms: percentile(latenciesMs, 50),
    p99Ms: percentile(latenciesMs, 99),
    maxMs: latenciesMs[latenciesMs.length - 1],
    serverCores: serverSeconds / seconds,
    loopRunning: (loop.running - loopBefore.running) / seconds,
    loopWaiting: (loop.waiting - loopBefore.waiting) / seconds,
    loadGeneratorCores: (load.user + load.system) / 1e6 / seconds,
    loadGeneratorWaiting: (generator.waiting - generatorBefore.waiting) / seconds,
    scanned,
  };
}

/** Prints what a read of a completed chunk takes cached and after the drop: whether the drop works here. */
async function showDrop(directory: string): Promise<void> {
  const chunk = readdirSync(directory).filter((name) => name.startsWith('chunk-')).sort()[0];
  const check = await checkDrop(join(directory, chunk));
  const mib = (bytes: number | undefined) => (bytes === undefined ? 'n/a (no fincore)' : `${(bytes / MiB).toFixed(0)} MiB`);
  report(`read of ${chunk} (${(check.bytes / MiB).toFixed(0)} MiB), cached`, check.warmMs, 'ms', `in the page cache: ${mib(check.residentWarm)}`);
  report(`read of ${chunk}, first after the drop`, check.coldMs, 'ms', `in the page cache after the drop: ${mib(check.residentDropped)}`);
  if (check.coldMs < 2 * check.warmMs) {
    process.stdout.write('warning: the drop hardly slowed the read: another cache (a VM host\'s) may serve the "cold" reads\n');
  }
}

async function measureRounds(prefix: string[], directory: string, log: ColdLog, readers: string[]): Promise<void> {
  const directories = [join(directory, 'db'), join(directory, 'index')];
  await showDrop(directories[0]);
  // The background check of chunk hashes at start would read the whole log alongside round 1.
  const node = await startServer(['--no-node-snapshot', join(root, 'bin/run.js'), 'serve', '--db', directories[0], '--http-port', '0',
    '--allow-anonymous-stream-access', '--run-projections', 'All', '--verify-chunks', 'off'], prefix);
  try {
    // Not measured: the appenders' first requests pay for JIT compilation and create their streams.
    const warmUp = open(node.url, { kind: 'single', clients: APPENDERS });
    await runFor(WARM_UP_MS, APPENDERS, (client) => warmUp.send(client));
    await warmUp.close();
    const results: RoundResult[] = [];
    for (let number = 1; number <= ROUNDS; number++) {
      for (const kind of KINDS) {
        const result = await round({ node, directories, log, readers }, kind, number);
        reportRound(result, number);
        results.push(result);
      }
    }
    reportMedians(results, KINDS);
  } finally {
    await stop(node);
  }
}

export async function coldReadsBenchmarks(): Promise<void> {
  const started = nowMs();
  const readers = readerNames(process.env.SVC_BENCH_COLD_READERS ?? '');
  const directory = scratchDirectory('cold-reads');
  const { prefix, release } = pinning();
  try {
    checkFreeSpace(directory, LOG_BYTES);
    const placement = prefix.length > 0 ? `load generator on core 0, server on cores ${prefix[2]}` : 'processes not pinned to cores';
    section(`cold reads: ${APPENDERS} appenders with and without the readers ${readers.join(', ')} `
      + `(${ROUNDS} alternated rounds of each of ${KINDS.join(', ')}, ${ROUND_MS / 1000} s each; ${placement})`);
    const log = await buildLog(directory, LOG_BYTES);
    report('cold log built', log.events / log.seconds, 'events/s',
      `${(log.bytes / GiB).toFixed(2)} GiB, ${log.events.toLocaleString('en-US')} events, about ${log.eventsPerStream} per stream, in ${log.seconds.toFixed(0)} s`);
    await measureRounds(prefix, directory, log, readers);
  } finally {
    release();
    rmSync(directory, { recursive: true, force: true });
    process.stdout.write(`cold-reads took ${((nowMs() - started) / 1000).toFixed(0)} s\n`);
  }
}
