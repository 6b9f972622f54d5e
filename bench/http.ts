/**
 * HTTP benchmarks: a node (`svcdb serve`) and the hello-world ceiling each run in a child
 * process and are loaded over loopback by autocannon from this process, so the load generator
 * and the server do not share an event loop. Where `taskset` exists, the load generator keeps
 * the first core and the servers get the others, so neither steals the other's core and the
 * ceiling and the node are measured alike.
 */
import autocannon from 'autocannon';
import { execa, execaSync, type ResultPromise } from 'execa';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { report, section } from './measure.js';
import { treeCpuSeconds } from './peers/process-cpu.js';

const DURATION_SECONDS = Number(process.env.SVC_BENCH_SECONDS ?? 3) + 2;
const CONNECTIONS = 50;
const root = fileURLToPath(new URL('../..', import.meta.url));

const pinTo = (cores: string) => execaSync('taskset', ['-a', '-p', '-c', cores, String(process.pid)], { stdio: 'ignore', reject: false }).exitCode === 0;

/**
 * Moves this process to the first core and returns the command prefix that puts a server on
 * the others (none when that cannot be done), with the way back for the benchmarks after these.
 */
export function pinning(): { prefix: string[]; release: () => void } {
  const cores = availableParallelism();
  if (cores < 2 || !pinTo('0')) return { prefix: [], release: () => undefined };
  return { prefix: ['taskset', '-c', `1-${cores - 1}`], release: () => void pinTo(`0-${cores - 1}`) };
}

export interface Server {
  url: string;
  child: ResultPromise;
}

function portOf(line: string): number | undefined {
  try {
    return (JSON.parse(line) as { port?: number }).port;
  } catch {
    return undefined; // Not a JSON line.
  }
}

/** Starts `args` with node and waits for a JSON line with a `port`. */
export async function startServer(args: string[], prefix: string[]): Promise<Server> {
  const [command, ...rest] = [...prefix, process.execPath, ...args];
  let listening!: (port: number) => void;
  const portLogged = new Promise<number>((resolve) => {
    listening = resolve;
  });
  const child = execa(command, rest, {
    cwd: root,
    stdin: 'ignore',
    stderr: 'inherit',
    // Each line is looked at as it arrives and not kept: a server logs for as long as it runs.
    stdout: function* (line: unknown) {
      const port = portOf(String(line));
      if (port) listening(port);
    },
    reject: false,
    forceKillAfterDelay: false,
  });
  const exitedFirst = child.then((result) => {
    throw new Error(`server exited with ${result.exitCode ?? result.signal} before it logged its port`);
  });
  const port = await Promise.race([portLogged, exitedFirst]);
  return { url: `http://127.0.0.1:${port}`, child };
}

export async function stop(server: Server): Promise<void> {
  server.child.kill('SIGTERM');
  await server.child;
}

export interface Load {
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
}

export async function load(options: autocannon.Options): Promise<Load> {
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_SECONDS, ...options });
  return { requestsPerSecond: result.requests.average, p99Ms: result.latency.p99, non2xx: result.non2xx + result.errors };
}

function share(value: number, ceiling: number): string {
  return `${((value / ceiling) * 100).toFixed(0)}% of hello-world`;
}

export const basic = (login: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}` });
// The default administrator of a new node creates the user the authenticated runs use: a plain
// user, so stream ACLs are checked for it as for anonymous requests (admins skip them).
const ADMIN = basic('admin', 'changeit');
export const USER = basic('bench', 'bench-password');

export async function createBenchUser(url: string): Promise<void> {
  const response = await fetch(`${url}/users/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...ADMIN },
    body: JSON.stringify({ loginName: 'bench', fullName: 'Benchmark', groups: [], password: 'bench-password' }),
  });
  if (response.status !== 201) throw new Error(`creating the benchmark user: ${response.status} ${await response.text()}`);
}

const COMPARISON_ROUNDS = 3;

function median(loads: Load[]): Load {
  return [...loads].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(loads.length / 2)];
}

/**
 * The same run without credentials and as a user, alternated over several rounds so that drift
 * on a shared machine falls on both alike; the medians give what authentication costs.
 */
async function compareAuthenticated(name: string, ceiling: Load, run: (headers: Record<string, string>) => Promise<Load>): Promise<{ anonymous: Load; authenticated: Load }> {
  const anonymousRuns: Load[] = [];
  const authenticatedRuns: Load[] = [];
  for (let round = 0; round < COMPARISON_ROUNDS; round++) {
    anonymousRuns.push(await run({}));
    authenticatedRuns.push(await run(USER));
  }
  const anonymous = median(anonymousRuns);
  const authenticated = median(authenticatedRuns);
  const spread = (loads: Load[]) => loads.map((load) => Math.round(load.requestsPerSecond)).join(' / ');
  report(`${name}, no credentials`, anonymous.requestsPerSecond, 'req/s',
    `median of ${spread(anonymousRuns)}, p99 ${anonymous.p99Ms} ms, ${share(anonymous.requestsPerSecond, ceiling.requestsPerSecond)}, non-2xx ${anonymous.non2xx}`);
  const cost = (1 - authenticated.requestsPerSecond / anonymous.requestsPerSecond) * 100;
  report(`${name}, authenticated`, authenticated.requestsPerSecond, 'req/s',
    `median of ${spread(authenticatedRuns)}, p99 ${authenticated.p99Ms} ms, ${share(authenticated.requestsPerSecond, ceiling.requestsPerSecond)}, non-2xx ${authenticated.non2xx}, authentication costs ${cost.toFixed(1)}%`);
  return { anonymous, authenticated };
}

/** Single raw JSON events, each with a fresh event id so that every request is a new write. */
export function singleAppends(url: string, headers: Record<string, string>): autocannon.Options {
  return {
    url,
    method: 'POST',
    requests: [{
      setupRequest: (request) => ({
        ...request,
        headers: { 'content-type': 'application/json', 'svc-eventtype': 'BenchEvent', 'svc-eventid': randomUUID(), ...headers },
        body: '{"value":1}',
      }),
    }],
  };
}

function batchBody(): string {
  return JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ eventId: randomUUID(), eventType: 'BenchEvent', data: { i, pad: 'x'.repeat(150) } })));
}

/** Below saturation, so that the figure is the cost of a request and not of a queue. */
const FIXED_RATE = 8000;

/**
 * The server's CPU per request (all its threads: fsyncs and GC included) at a fixed request
 * rate: what a request costs, where req/s at saturation also reflects the load generator.
 */
export async function cpuPerRequest(server: Server, options: autocannon.Options, rate = FIXED_RATE): Promise<number> {
  const before = treeCpuSeconds(server.child.pid!);
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_SECONDS, overallRate: rate, ...options });
  return ((treeCpuSeconds(server.child.pid!) - before) * 1e6) / result.requests.total;
}

/**
 * Many clients long-polling streams that stay quiet: the node's CPU over an idle interval
 * should be what an idle node uses, whatever the number of waiters.
 */
async function idleLongPolls(url: string, pid: number, waiters: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const pending = Array.from({ length: waiters }, (_, i) => new Promise<void>((resolve) => {
    const req = request(`${url}/streams/quiet-${i}/0/forward/20`, { agent, headers: { accept: 'application/vnd.svc.atom+json', 'svc-longpoll': '30' } }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', () => resolve());
    req.end();
  }));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const before = treeCpuSeconds(pid);
  const intervalMs = 3000;
  await new Promise((resolve) => setTimeout(resolve, intervalMs));
  const used = treeCpuSeconds(pid) - before;
  report(`node CPU while ${waiters} long polls wait`, (used / (intervalMs / 1000)) * 100, '% of a core', `${(used * 1000).toFixed(0)} ms of CPU in ${intervalMs / 1000} s`);
  agent.destroy();
  await Promise.all(pending);
}

export async function httpBenchmarks(): Promise<void> {
  const { prefix, release } = pinning();
  try {
    await loadNodeAndCeiling(prefix);
  } finally {
    release();
  }
}

async function loadNodeAndCeiling(prefix: string[]): Promise<void> {
  const placement = prefix.length > 0 ? `load generator on core 0, servers on cores ${prefix[2]}` : 'processes not pinned to cores';
  section(`HTTP over loopback (autocannon, ${CONNECTIONS} connections, ${DURATION_SECONDS} s per run; ${placement})`);
  const hello = await startServer([join(root, 'dist/bench/hello-server.js')], prefix);
  const ceiling = await load({ url: `${hello.url}/hello` });
  // The appends' requests (a fresh event id each) against a route that stores nothing: what the
  // load generator and fastify allow a write before the node does any work.
  const postCeiling = await load(singleAppends(`${hello.url}/hello`, {}));
  const postCpu = await cpuPerRequest(hello, singleAppends(`${hello.url}/hello`, {}));
  await stop(hello);
  report('ceiling: fastify hello-world GET', ceiling.requestsPerSecond, 'req/s', `p99 ${ceiling.p99Ms} ms`);
  report('ceiling: fastify POST answering 201, append requests', postCeiling.requestsPerSecond, 'req/s',
    `p99 ${postCeiling.p99Ms} ms, ${share(postCeiling.requestsPerSecond, ceiling.requestsPerSecond)}`);

  const directory = mkdtempSync(join(process.env.SVC_BENCH_DIR ?? tmpdir(), 'svcdb-bench-http-'));
  // The floor: the same engine behind node's bare http module, none of the node's HTTP layer.
  const floor = await startServer([join(root, 'dist/bench/engine-floor-server.js'), join(directory, 'floor')], prefix);
  const floorLoad = await load(singleAppends(`${floor.url}/streams/bench-floor`, {}));
  const floorCpu = await cpuPerRequest(floor, singleAppends(`${floor.url}/streams/bench-floor`, {}));
  await stop(floor);
  report('floor: node:http around the same engine, single appends', floorLoad.requestsPerSecond, 'req/s',
    `p99 ${floorLoad.p99Ms} ms, ${share(floorLoad.requestsPerSecond, ceiling.requestsPerSecond)}, non-2xx ${floorLoad.non2xx}`);
  // Anonymous stream access lets the same node serve each run with and without credentials.
  const node = await startServer(['--no-node-snapshot', join(root, 'bin/run.js'), 'serve', '--db', join(directory, 'db'), '--http-port', '0', '--allow-anonymous-stream-access'], prefix);
  try {
    await createBenchUser(node.url);
    // One verified request first: the runs measure requests with cached credentials, not the first scrypt.
    await fetch(`${node.url}/users/$current`, { headers: USER });
    // Reads first, on a stream of 200 events, so no index work left by the append runs competes.
    for (let i = 0; i < 2; i++) {
      await fetch(`${node.url}/streams/bench-read`, { method: 'POST', headers: { 'content-type': 'application/vnd.svc.events+json' }, body: batchBody() });
    }
    const accept = { accept: 'application/vnd.svc.atom+json' };
    await compareAuthenticated('20-event feed reads, head page', ceiling, (headers) => load({ url: `${node.url}/streams/bench-read`, headers: { ...accept, ...headers } }));
    await compareAuthenticated('20-event feed reads, middle page', ceiling, (headers) => load({ url: `${node.url}/streams/bench-read/100/forward/20`, headers: { ...accept, ...headers } }));
    const appends = await compareAuthenticated('single-event appends', ceiling, (headers) => load(singleAppends(`${node.url}/streams/bench-single`, headers)));
    const ofFloor = (appendLoad: Load) => `${((appendLoad.requestsPerSecond / floorLoad.requestsPerSecond) * 100).toFixed(0)}%`;
    report('single-event appends beside the floor', (appends.anonymous.requestsPerSecond / floorLoad.requestsPerSecond) * 100, '% of the floor',
      `no credentials ${ofFloor(appends.anonymous)}, authenticated ${ofFloor(appends.authenticated)}`);
    const nodeCpu = await cpuPerRequest(node, singleAppends(`${node.url}/streams/bench-single`, USER));
    report(`server CPU per single append at ${FIXED_RATE.toLocaleString('en-US')} req/s`, nodeCpu, 'µs',
      `authenticated; the floor ${floorCpu.toFixed(1)} µs; fastify POST answering 201 ${postCpu.toFixed(1)} µs`);

    // Every request carries fresh event ids, so each one is a write and not an idempotent repeat.
    const batches = await load({
      url: `${node.url}/streams/bench-batch`,
      method: 'POST',
      connections: 16,
      requests: [{
        setupRequest: (request) => ({ ...request, headers: { 'content-type': 'application/vnd.svc.events+json', ...USER }, body: batchBody() }),
      }],
    });
    report('100-event batch appends (16 connections, authenticated)', batches.requestsPerSecond * 100, 'events/s', `p99 ${batches.p99Ms} ms, non-2xx ${batches.non2xx}`);

    await idleLongPolls(node.url, node.child.pid!, 1000);
  } finally {
    await stop(node);
    rmSync(directory, { recursive: true, force: true });
  }
}
