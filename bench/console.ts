/**
 * Web console benchmarks, against a real `svcdb serve` child process:
 * - first load: the bytes a browser transfers to open the console (the index, its stylesheet,
 *   its script and the modules that script imports; the editor is loaded later), compressed as
 *   the node serves them, beside the same files uncompressed (target: under 300 KB compressed);
 * - dashboard refresh: the node's CPU time (from /proc) while one open dashboard asks for
 *   `/stats` every second and holds a long poll on `$all`, beside the same node left idle for as
 *   long (target: under 2% of a core more than idle).
 * SVC_BENCH_CONSOLE_SECONDS sets each CPU window (default 60).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nowMs, report, section } from './measure.js';

const WINDOW_MS = Number(process.env.SVC_BENCH_CONSOLE_SECONDS ?? 60) * 1000;
const REFRESH_MS = 1000;
const LONG_POLL_SECONDS = 10;
const AUTH = `Basic ${Buffer.from('admin:changeit').toString('base64')}`;
/** Linux reports process CPU time in clock ticks of 1/100 s. */
const TICKS_PER_SECOND = 100;
const cli = fileURLToPath(new URL('../../bin/run.js', import.meta.url));

interface Node {
  url: string;
  pid: number;
  stop: () => void;
}

async function startNode(directory: string): Promise<Node> {
  const child = spawn(process.execPath, ['--no-node-snapshot', cli, 'serve', '--db', join(directory, 'db'), '--http-port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (const line of buffered.split('\n')) {
        if (line.includes('"listening"')) resolve((JSON.parse(line) as { port: number }).port);
      }
    });
    child.once('exit', (code) => reject(new Error(`svcdb serve exited (${code}) before listening`)));
  });
  child.stdout.resume();
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}

/** User plus system CPU seconds the process has used so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

async function transferred(url: string, encoding: string): Promise<number> {
  const reply = await fetch(url, { headers: { 'accept-encoding': encoding } });
  const body = await reply.arrayBuffer();
  return Number(reply.headers.get('content-length') ?? body.byteLength);
}

/** The URLs a browser fetches to open the console: the index, what it names, and static imports. */
async function firstLoadUrls(base: string): Promise<string[]> {
  const index = await (await fetch(`${base}/web`)).text();
  const named = [...index.matchAll(/(?:href|src)="(\/web\/assets\/[^"]+)"/g)].map((match) => match[1]);
  const urls = new Set([`${base}/web`]);
  const queue = named.map((path) => `${base}${path}`);
  while (queue.length > 0) {
    const url = queue.shift()!;
    if (urls.has(url)) continue;
    urls.add(url);
    if (!url.endsWith('.js')) continue;
    const script = await (await fetch(url)).text();
    // Static imports only: `import("./x.js")` is fetched when a page needs it.
    for (const match of script.matchAll(/(?:from|import)\s*"\.\/([^"]+\.js)"/g)) queue.push(new URL(match[1], url).href);
  }
  return [...urls];
}

async function firstLoad(base: string): Promise<void> {
  const urls = await firstLoadUrls(base);
  let plain = 0;
  let brotli = 0;
  let gzip = 0;
  for (const url of urls) {
    plain += await transferred(url, 'identity');
    brotli += await transferred(url, 'br');
    gzip += await transferred(url, 'gzip');
  }
  report('console first load: uncompressed (baseline)', plain / 1024, 'KiB', `${urls.length} files`);
  report('console first load: brotli', brotli / 1024, 'KiB', 'target < 300 KB');
  report('console first load: gzip', gzip / 1024, 'KiB', 'target < 300 KB');
}

/** One open dashboard: /stats every second, one after the other, and the $all tail's long poll. */
async function dashboard(base: string, until: number): Promise<number> {
  let requests = 0;
  const headers = { authorization: AUTH, accept: 'application/json' };
  const stats = (async () => {
    while (nowMs() < until) {
      await (await fetch(`${base}/stats`, { headers })).arrayBuffer();
      requests += 1;
      await new Promise((resolve) => setTimeout(resolve, REFRESH_MS));
    }
  })();
  const tail = (async () => {
    const feed = { authorization: AUTH, accept: 'application/vnd.svc.atom+json' };
    const head = (await (await fetch(`${base}/streams/%24all/head/backward/20?embed=rich`, { headers: feed })).json()) as { links: Array<{ relation: string; uri: string }> };
    const next = head.links.find((link) => link.relation === 'previous')!.uri;
    while (nowMs() < until) {
      await (await fetch(next, { headers: { ...feed, 'svc-longpoll': String(LONG_POLL_SECONDS) } })).arrayBuffer();
      requests += 1;
    }
  })();
  await Promise.all([stats, tail]);
  return requests;
}

async function cpuOver(pid: number, run: () => Promise<unknown>): Promise<number> {
  const before = cpuSeconds(pid);
  const start = nowMs();
  await run();
  return (cpuSeconds(pid) - before) / ((nowMs() - start) / 1000);
}

export async function consoleBenchmarks(): Promise<void> {
  section(`web console (first load; dashboard refresh over ${WINDOW_MS / 1000} s vs the idle node)`);
  const directory = mkdtempSync(join(process.env.SVC_BENCH_DIR ?? tmpdir(), 'svcdb-bench-console-'));
  const node = await startNode(directory);
  try {
    await firstLoad(node.url);
    const idle = await cpuOver(node.pid, () => new Promise((resolve) => setTimeout(resolve, WINDOW_MS)));
    let requests = 0;
    const busy = await cpuOver(node.pid, async () => { requests = await dashboard(node.url, nowMs() + WINDOW_MS); });
    report('dashboard: node CPU, idle (baseline)', idle * 100, '% of a core');
    report('dashboard: node CPU, one dashboard open', busy * 100, '% of a core', `${requests} requests; ${((busy - idle) * 100).toFixed(2)} points above idle (target < 2)`);
  } finally {
    node.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}
