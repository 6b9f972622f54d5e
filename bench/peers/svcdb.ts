/**
 * svcdb beside its peers: a node (`svcdb serve`) on a fresh data directory, started as the HTTP
 * benchmarks start it, loaded over loopback with single-event POSTs (expected version any) and
 * 100-event batch POSTs. Its durable flushes are the group commits its /stats counts.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Agent, request, type OutgoingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { basic, startServer, stop } from '../http.js';
import { scratchDirectory } from './child.js';
import { EVENT_TYPE, PAYLOAD, type RunningSystem, type Session, type System, type Work } from './workloads.js';

const BATCH_EVENTS = 100;
const BATCH_CLIENTS = 16;
const root = fileURLToPath(new URL('../../..', import.meta.url));

/** POSTs `body` and resolves on 201; anything else fails the run. */
function post(agent: Agent, url: URL, headers: OutgoingHttpHeaders, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        if (response.statusCode === 201) resolve();
        else reject(new Error(`svcdb answered ${response.statusCode}: ${Buffer.concat(chunks).toString()}`));
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** A batch body with fresh event ids, so every request is a write and not an idempotent repeat. */
function batchBody(): string {
  return `[${Array.from({ length: BATCH_EVENTS }, () => `{"eventId":"${randomUUID()}","eventType":"${EVENT_TYPE}","data":${PAYLOAD}}`).join(',')}]`;
}

/** Clients of the node at `url` for `work`: the cluster bench loads a cluster's leader with them too. */
export function open(url: string, work: Work): Session {
  const clients = work.kind === 'single' ? work.clients : BATCH_CLIENTS;
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const close = async () => agent.destroy();
  if (work.kind === 'single') {
    const streams = Array.from({ length: clients }, (_, client) => new URL(`${url}/streams/single-${clients}-${client}`));
    return {
      clients, eventsPerRequest: 1, shape: 'single-event POST, expected version any', close,
      send: (client) => post(agent, streams[client], { 'content-type': 'application/json', 'svc-eventtype': EVENT_TYPE, 'svc-eventid': randomUUID() }, PAYLOAD),
    };
  }
  const streams = Array.from({ length: clients }, (_, client) => new URL(`${url}/streams/batch-${client}`));
  return {
    clients, eventsPerRequest: BATCH_EVENTS, shape: `${BATCH_EVENTS}-event POST, ${clients} clients`, close,
    send: (client) => post(agent, streams[client], { 'content-type': 'application/vnd.svc.events+json' }, batchBody()),
  };
}

export async function groupCommits(url: string): Promise<number> {
  const response = await fetch(`${url}/stats/svc/writer/totalFlushes`, { headers: basic('admin', 'changeit') });
  if (!response.ok) throw new Error(`svcdb /stats answered ${response.status}`);
  return Number(await response.json());
}

async function start(prefix: string[]): Promise<RunningSystem> {
  const directory = scratchDirectory('peers-svcdb');
  try {
    const node = await startServer(['--no-node-snapshot', join(root, 'bin/run.js'), 'serve', '--db', join(directory, 'db'), '--http-port', '0', '--allow-anonymous-stream-access'], prefix);
    return {
      pid: node.child.pid!,
      open: async (work) => open(node.url, work),
      syncs: () => groupCommits(node.url),
      stop: async () => {
        await stop(node);
        rmSync(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}

export const svcdb: System = { label: 'svcdb', missing: () => undefined, start };
