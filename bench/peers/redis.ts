/**
 * Redis as a peer: a scratch server with the append-only file fsynced before each reply
 * (`appendonly yes`, `appendfsync always`) and no snapshots; events are stream entries (XADD).
 * It is the ceiling of a C server with the same durability rule, not a store with version checks.
 */
import type { ResultPromise } from 'execa';
import { rmSync } from 'node:fs';
import { freePort, onPath, scratchDirectory, startUntilReady } from './child.js';
import { encodeCommand, RespConnection } from './resp.js';
import { EVENT_TYPE, PAYLOAD, type RunningSystem, type Session, type System, type Work } from './workloads.js';

const BATCH_ENTRIES = 20;
const BATCH_CLIENTS = 50;

async function open(port: number, work: Work): Promise<Session> {
  const clients = work.kind === 'single' ? work.clients : BATCH_CLIENTS;
  const connections = await Promise.all(Array.from({ length: clients }, () => RespConnection.connect(port)));
  const close = async () => {
    await Promise.all(connections.map((connection) => connection.close()));
  };
  const perRequest = work.kind === 'single' ? 1 : BATCH_ENTRIES;
  // The entry id is Redis's (`*`), so each client's commands are the same bytes every time.
  const requests = connections.map((_, client) => {
    const command = encodeCommand(['XADD', work.kind === 'single' ? `single-${clients}-${client}` : `batch-${client}`, '*', 'type', EVENT_TYPE, 'data', PAYLOAD]);
    return Buffer.concat(new Array<Buffer>(perRequest).fill(command));
  });
  return {
    clients, eventsPerRequest: perRequest, close,
    shape: work.kind === 'single' ? 'XADD' : `${BATCH_ENTRIES} XADDs pipelined, ${clients} clients`,
    send: (client) => connections[client].send(requests[client], perRequest),
  };
}

async function start(prefix: string[], binary: string): Promise<RunningSystem> {
  const directory = scratchDirectory('redis');
  const port = await freePort();
  let server: ResultPromise;
  try {
    ({ child: server } = await startUntilReady([...prefix, binary, '--port', String(port), '--bind', '127.0.0.1', '--dir', directory,
      '--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--daemonize', 'no', '--logfile', ''], /Ready to accept connections/));
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    pid: server.pid!,
    open: (work) => open(port, work),
    // Redis counts no fsyncs: it makes one per pass of its event loop that wrote to the file.
    syncs: async () => undefined,
    stop: async () => {
      server.kill('SIGTERM');
      await server;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export const redis: System = {
  label: 'Redis',
  missing: () => (onPath('redis-server') ? undefined : 'Redis is not installed: `apt-get install -y redis-server` adds it'),
  start: (prefix) => start(prefix, onPath('redis-server')!),
};
