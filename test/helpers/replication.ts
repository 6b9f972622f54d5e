/**
 * A leader and its read-only replicas as real `svcdb serve` processes on loopback, each in its
 * own directories, and the checks the replication tests share: a replica has caught up when its
 * writer.chk equals the leader's; then every completed chunk file is byte for byte the leader's
 * and the ongoing chunk holds the same bytes up to writer.chk.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Test } from 'tap';
import { CHUNK_FOOTER_BYTES, CHUNK_HEADER_BYTES } from '../../src/storage/log/chunk-format.js';
import { CheckpointName, parseChunkFileName } from '../../src/storage/layout.js';
import { ADMIN_AUTH } from './auth.js';
import { readCheckpointFile } from './checkpoint-files.js';
import { startServer, type RunningServer } from './cli.js';
import { pollUntil, pollUntilAsync } from './wait.js';

/** Small chunks, so that a few megabytes of events cross many chunk boundaries. */
export const TEST_CHUNK_BYTES = 64 * 1024;

export interface NodeDirectories {
  db: string;
  index: string;
}

export function nodeDirectories(root: string, name: string): NodeDirectories {
  return { db: join(root, name, 'db'), index: join(root, name, 'index') };
}

export function startLeader(t: Test, directories: NodeDirectories, args: readonly string[] = []): Promise<RunningServer> {
  return startServer(t, { dbPath: directories.db, args: ['--index', directories.index, '--chunk-size', String(TEST_CHUNK_BYTES), ...args] });
}

/** A replica of `leaderUrl`; it takes the leader's chunk size when its database is new. */
export function startReplica(t: Test, directories: NodeDirectories, leaderUrl: string, args: readonly string[] = []): Promise<RunningServer> {
  return startServer(t, { dbPath: directories.db, args: ['--index', directories.index, '--replica-of', leaderUrl, ...args] });
}

export function writerCheckpoint(db: string): number {
  return readCheckpointFile(db, CheckpointName.writer);
}

/** A port free right now on loopback: for a leader that must come back on the address its replicas follow. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A replica to wait for: its directories, and its URL when the test reads from it. */
export interface ReplicaNode {
  directories: NodeDirectories;
  url?: string;
}

/** The position up to which a node serves reads: its own gossip entry (readable end). */
async function servedPosition(url: string): Promise<number> {
  const response = await fetch(`${url}/gossip`);
  const gossip = await response.json() as { members: Array<{ writerCheckpoint: number }> };
  return gossip.members[0].writerCheckpoint;
}

/**
 * Waits until every replica's writer.chk equals the leader's (the leader no longer writing) and,
 * for a replica given with its URL, until it serves reads up to there: a replica indexes and
 * publishes records after the fsync that follows the write of writer.chk, so for a moment its
 * file is ahead of what it serves.
 */
export async function waitForReplicas(leader: NodeDirectories, replicas: readonly ReplicaNode[]): Promise<number> {
  const end = writerCheckpoint(leader.db);
  await pollUntil(`replicas at the leader's writer checkpoint ${end}`, () => replicas.every((replica) => writerCheckpoint(replica.directories.db) === end), { intervalMs: 20 });
  for (const { url } of replicas) {
    if (url !== undefined) await pollUntilAsync(`${url} to serve up to ${end}`, async () => await servedPosition(url) >= end, { intervalMs: 20 });
  }
  return end;
}

/** Chunk files by chunk number, the newest version of each. */
function chunkFiles(db: string): Map<number, string> {
  const files = new Map<number, { name: string; version: number }>();
  for (const name of readdirSync(db)) {
    const parsed = parseChunkFileName(name);
    if (!parsed) continue;
    const known = files.get(parsed.chunkNumber);
    if (!known || known.version < parsed.version) files.set(parsed.chunkNumber, { name, version: parsed.version });
  }
  return new Map([...files].map(([number, file]) => [number, file.name]));
}

export interface LogComparison {
  completedChunks: number;
  /** Chunks whose bytes differ, by file name. */
  different: string[];
  /** Bytes of the ongoing chunk compared (its data up to writer.chk). */
  ongoingBytes: number;
}

/**
 * Compares the replica's log with the leader's up to `end` (both writer.chk): each completed
 * chunk file whole, the ongoing chunk's header and data up to `end`.
 */
export function compareLogs(leaderDb: string, replicaDb: string, end: number): LogComparison {
  const ours = chunkFiles(leaderDb);
  const theirs = chunkFiles(replicaDb);
  const ongoing = Math.floor(end / TEST_CHUNK_BYTES);
  const different: string[] = [];
  let completedChunks = 0;
  let ongoingBytes = 0;
  for (const [number, name] of ours) {
    const replicaName = theirs.get(number);
    if (replicaName === undefined) {
      if (number <= ongoing) different.push(`${name} (missing on the replica)`);
      continue;
    }
    const leaderBytes = readFileSync(join(leaderDb, name));
    const replicaBytes = readFileSync(join(replicaDb, replicaName));
    if (number < ongoing) {
      completedChunks++;
      if (!leaderBytes.equals(replicaBytes)) different.push(name);
    } else if (number === ongoing) {
      ongoingBytes = CHUNK_HEADER_BYTES + end - ongoing * TEST_CHUNK_BYTES;
      if (!leaderBytes.subarray(0, ongoingBytes).equals(replicaBytes.subarray(0, ongoingBytes))) different.push(`${name} (ongoing)`);
    }
  }
  return { completedChunks, different, ongoingBytes };
}

/**
 * Bytes of records in the log up to `end`: what a replica must receive at least. Log positions
 * also count the free tail of each completed chunk, which no one sends.
 */
export function recordBytes(db: string, end: number): number {
  const ongoing = Math.floor(end / TEST_CHUNK_BYTES);
  let total = 0;
  for (const [number, name] of chunkFiles(db)) {
    if (number > ongoing) continue;
    if (number === ongoing) {
      total += end - ongoing * TEST_CHUNK_BYTES;
      continue;
    }
    const bytes = readFileSync(join(db, name));
    // The footer's physical data size (chunk-format.ts: u32 after the flags byte).
    total += bytes.readUInt32LE(bytes.length - CHUNK_FOOTER_BYTES + 1);
  }
  return total;
}

/** Appends one event of `dataBytes` to `stream` on `url`; resolves with its id once acknowledged (201). */
export async function appendEvent(url: string, stream: string, dataBytes: number): Promise<string> {
  const eventId = randomUUID();
  const response = await fetch(`${url}/streams/${stream}`, {
    method: 'POST',
    headers: { authorization: ADMIN_AUTH, 'content-type': 'application/json', 'svc-eventtype': 'tested', 'svc-eventid': eventId },
    body: JSON.stringify({ eventId, pad: 'x'.repeat(dataBytes) }),
  });
  await response.arrayBuffer();
  if (response.status !== 201) throw new Error(`append to ${stream} answered ${response.status}`);
  return eventId;
}

/** `writers` writers, each appending `eventsEach` events to its own stream; the ids acknowledged, by stream. */
export async function appendConcurrently(url: string, writers: number, eventsEach: number, dataBytes: number): Promise<Map<string, string[]>> {
  const acknowledged = new Map<string, string[]>();
  await Promise.all(Array.from({ length: writers }, async (_, writer) => {
    const stream = `writer-${writer}`;
    const ids: string[] = [];
    acknowledged.set(stream, ids);
    for (let i = 0; i < eventsEach; i++) ids.push(await appendEvent(url, stream, dataBytes));
  }));
  return acknowledged;
}

/** The ids of every event of `stream` read from `url`, in order. */
export async function eventIds(url: string, stream: string): Promise<string[]> {
  const ids: string[] = [];
  for (let from = 0; ;) {
    const response = await fetch(`${url}/streams/${stream}/${from}/forward/500?embed=body`, {
      headers: { authorization: ADMIN_AUTH, accept: 'application/vnd.svc.atom+json' },
    });
    if (response.status === 404) return ids;
    if (response.status !== 200) throw new Error(`reading ${stream} answered ${response.status}`);
    const feed = await response.json() as { entries: Array<{ eventId: string; eventNumber: number }> };
    // Forward pages list the newest first.
    const entries = [...feed.entries].sort((a, b) => a.eventNumber - b.eventNumber);
    ids.push(...entries.map((entry) => entry.eventId));
    if (entries.length < 500) return ids;
    from += 500;
  }
}

/** Every acknowledged event id that `url` does not serve, by stream. */
export async function missingEvents(url: string, acknowledged: Map<string, string[]>): Promise<string[]> {
  const missing: string[] = [];
  for (const [stream, ids] of acknowledged) {
    const served = new Set(await eventIds(url, stream));
    for (const id of ids) if (!served.has(id)) missing.push(`${stream}/${id}`);
  }
  return missing;
}

export interface ReplicationInfo {
  state: string;
  replication?: { state: string; connection: string; writerCheckpoint: number; leaderWriterCheckpoint: number; lagBytes: number; lagSeconds: number; reconnects: number };
}

export async function nodeInfo(url: string): Promise<ReplicationInfo> {
  const response = await fetch(`${url}/info`);
  return await response.json() as ReplicationInfo;
}
