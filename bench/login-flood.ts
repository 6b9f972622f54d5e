/**
 * Appends by a user whose credentials are cached, with and without 100 clients sending wrong
 * passwords as fast as the node answers them, in the same run on the same node: the append p99
 * under the flood should stay within twice the p99 without it. Each flood client has its own
 * loopback address (127.0.3.x), as a flood from many machines would, so the per-address backoff
 * slows each of them and not the appender; the verification queue bounds them all together.
 */
import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { basic, createBenchUser, load, singleAppends, startServer, stop, USER, type Load } from './http.js';
import { report, section } from './measure.js';

const FLOOD_CLIENTS = 100;
const APPEND_CONNECTIONS = 16;
/** Time for the flood to fill the queue before the appends are measured. */
const FLOOD_LEAD_MS = 1000;
const root = fileURLToPath(new URL('../..', import.meta.url));

interface Flood {
  statuses: Map<number, number>;
  stop: () => Promise<void>;
}

/** One client: wrong passwords on a kept-alive connection from its own address, one after another. */
async function floodClient(url: URL, index: number, running: () => boolean, statuses: Map<number, number>): Promise<void> {
  const localAddress = `127.0.3.${1 + index}`;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  for (let attempt = 0; running(); attempt++) {
    const auth = basic(index % 2 === 0 ? 'admin' : `nobody-${index}`, `guess-${index}-${attempt}`);
    const status = await new Promise<number>((resolve) => {
      const outgoing = request({ host: url.hostname, port: url.port, path: '/users/$current', agent, localAddress, headers: auth }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      outgoing.on('error', () => resolve(0));
      outgoing.end();
    });
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  agent.destroy();
}

function startFlood(url: string): Flood {
  const statuses = new Map<number, number>();
  let running = true;
  const clients = Array.from({ length: FLOOD_CLIENTS }, (_, index) => floodClient(new URL(url), index, () => running, statuses));
  return {
    statuses,
    stop: async () => {
      running = false;
      await Promise.all(clients);
    },
  };
}

async function authenticationStats(url: string): Promise<Record<string, number>> {
  const response = await fetch(`${url}/stats/svc/authentication`, { headers: basic('admin', 'changeit') });
  return await response.json() as Record<string, number>;
}

const appendsOf = (url: string) => load({ ...singleAppends(`${url}/streams/bench-flood`, USER), connections: APPEND_CONNECTIONS });

export async function loginFloodBenchmark(prefix: string[]): Promise<void> {
  section(`Appends during a bad-login flood (${FLOOD_CLIENTS} clients with wrong passwords, ${APPEND_CONNECTIONS} appending connections with cached credentials)`);
  const directory = mkdtempSync(join(process.env.SVC_BENCH_DIR ?? tmpdir(), 'svcdb-bench-flood-'));
  const node = await startServer(['--no-node-snapshot', join(root, 'bin/run.js'), 'serve', '--db', join(directory, 'db'), '--http-port', '0'], prefix);
  try {
    await createBenchUser(node.url);
    await fetch(`${node.url}/users/$current`, { headers: USER });
    const quiet: Load = await appendsOf(node.url);
    const flood = startFlood(node.url);
    await new Promise((resolve) => setTimeout(resolve, FLOOD_LEAD_MS));
    const flooded: Load = await appendsOf(node.url);
    await flood.stop();
    const statuses = [...flood.statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`).join(', ');
    report('single-event appends, no flood', quiet.p99Ms, 'ms p99', `${Math.round(quiet.requestsPerSecond)} req/s, non-2xx ${quiet.non2xx}`);
    report('single-event appends, during the flood', flooded.p99Ms, 'ms p99',
      `${Math.round(flooded.requestsPerSecond)} req/s, non-2xx ${flooded.non2xx}, ${(flooded.p99Ms / quiet.p99Ms).toFixed(2)}× the p99 without the flood (target within 2×)`);
    const stats = await authenticationStats(node.url);
    report('flood replies', [...flood.statuses.values()].reduce((sum, count) => sum + count, 0), 'replies',
      `${statuses}; queue peak ${stats.verificationsWaitingPeak} of ${stats.verificationsWaitingMax}, refused ${stats.verificationsRefused}, failed logins ${stats.failedLogins}, throttled ${stats.throttledRequests}`);
  } finally {
    await stop(node);
    rmSync(directory, { recursive: true, force: true });
  }
}
