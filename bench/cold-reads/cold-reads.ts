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
import { treeCpuSeconds } from '../peers/process-cpu.js';
import { open } from '../peers/svcdb.js';
import { reportMedians, reportRound, type RoundKind, type RoundResult } from './figures.js';
import { buildLog, checkFreeSpace, GiB, type ColdLog } from './log-build.js';
import { checkDrop, dropPageCache } from './page-cache.js';
import { startScans } from './scanners.js';

const LOG_BYTES = Math.round(Number(process.env.SVC_BENCH_COLD_GIB ?? 2) * GiB);
const ROUNDS = Number(process.env.SVC_BENCH_ROUNDS ?? 3);
const ROUND_MS = Number(process.env.SVC_BENCH_COLD_SECONDS ?? 10) * 1000;
const APPENDERS = 10;
const WARM_UP_MS = 1000;
const root = fileURLToPath(new URL('../../..', import.meta.url));
const MiB = 1024 * 1024;

/** One round: the cache dropped, the readers started (scans only), the appends measured. */
async function round(node: Server, kind: RoundKind, number: number, directories: string[], log: ColdLog): Promise<RoundResult> {
  await dropPageCache(directories);
  const session = open(node.url, { kind: 'single', clients: APPENDERS });
  const started = nowMs();
  const scans = kind === 'scans' ? await startScans(node.url, number, log.eventsPerStream) : [];
  const cpuBefore = treeCpuSeconds(node.child.pid!);
  const loadBefore = process.cpuUsage();
  const { latenciesMs, elapsedMs } = await runFor(ROUND_MS, APPENDERS, (client) => session.send(client));
  const serverSeconds = treeCpuSeconds(node.child.pid!) - cpuBefore;
  const load = process.cpuUsage(loadBefore);
  const scanned = await Promise.all(scans.map(async (scan) => [scan.name, await scan.stop()] as const));
  const scanSeconds = (nowMs() - started) / 1000;
  await session.close();
  const seconds = elapsedMs / 1000;
  return {
    kind,
    appendsPerSecond: latenciesMs.length / seconds,
    p50Ms: percentile(latenciesMs, 50),
    p99Ms: percentile(latenciesMs, 99),
    maxMs: latenciesMs[latenciesMs.length - 1],
    serverCores: serverSeconds / seconds,
    loadGeneratorCores: (load.user + load.system) / 1e6 / seconds,
    scanned: new Map(scanned.map(([name, events]) => [name, events / scanSeconds])),
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

async function measureRounds(prefix: string[], directory: string, log: ColdLog): Promise<void> {
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
      for (const kind of ['quiet', 'scans'] as const) {
        const result = await round(node, kind, number, directories, log);
        reportRound(result, number);
        results.push(result);
      }
    }
    reportMedians(results);
  } finally {
    await stop(node);
  }
}

export async function coldReadsBenchmarks(): Promise<void> {
  const started = nowMs();
  const directory = scratchDirectory('cold-reads');
  const { prefix, release } = pinning();
  try {
    checkFreeSpace(directory, LOG_BYTES);
    const placement = prefix.length > 0 ? `load generator on core 0, server on cores ${prefix[2]}` : 'processes not pinned to cores';
    section(`cold reads: ${APPENDERS} appenders with and without scans of a cold log (${ROUNDS} alternated rounds of ${ROUND_MS / 1000} s each; ${placement})`);
    const log = await buildLog(directory, LOG_BYTES);
    report('cold log built', log.events / log.seconds, 'events/s',
      `${(log.bytes / GiB).toFixed(2)} GiB, ${log.events.toLocaleString('en-US')} events, about ${log.eventsPerStream} per stream, in ${log.seconds.toFixed(0)} s`);
    await measureRounds(prefix, directory, log);
  } finally {
    release();
    rmSync(directory, { recursive: true, force: true });
    process.stdout.write(`cold-reads took ${((nowMs() - started) / 1000).toFixed(0)} s\n`);
  }
}
