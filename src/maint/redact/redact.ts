/**
 * `svcdb redact`: blanks the data of listed events on a running node. Over the node's unix
 * socket it takes the chunk-switch lock, asks where each event's records lie, refuses before
 * changing anything when an event is missing, a tombstone or in the chunk still being written,
 * then for each chunk writes a redacted copy next to it and has the node switch it in. The lock
 * is released at the end, or by the node when this process dies.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Errors } from '../../common/errors.js';
import type { ProgressListener } from '../../common/progress.js';
import { writeRedactedCopy, type RecordToRedact } from './chunk-copy.js';
import { formatEvent, type EventReference } from './events-list.js';
import { RedactionClient, type EventPositionReply } from './socket-client.js';

export const SOCKET_FILE = 'svcdb.sock';

export type RedactStep = 'locked' | 'positions' | 'copied' | 'switched' | 'released';

export interface RedactOptions {
  dbPath: string;
  events: readonly EventReference[];
  dryRun?: boolean;
  onProgress?: ProgressListener;
  /** Hears each step once it is done (crash tests kill the process there). */
  onStep?: (step: RedactStep) => void | Promise<void>;
}

export interface RedactedEvent {
  stream: string;
  eventNumber: number;
  chunkFile: string;
  /** The chunk file that now holds it; absent on a dry run or when it was redacted already. */
  newChunkFile?: string;
  alreadyRedacted: boolean;
}

export interface RedactResult {
  dbPath: string;
  dryRun: boolean;
  events: RedactedEvent[];
  chunksSwitched: string[];
}

function checkDataDirectory(dbPath: string): string {
  if (!existsSync(dbPath) || !statSync(dbPath).isDirectory()) throw Errors.redactNotDataDirectory.create(dbPath, 'it is not a directory');
  if (!existsSync(join(dbPath, 'writer.chk')) || !readdirSync(dbPath).some((name) => name.startsWith('chunk-'))) {
    throw Errors.redactNotDataDirectory.create(dbPath, 'it holds no writer.chk and no chunk files');
  }
  const socketPath = join(dbPath, SOCKET_FILE);
  if (!existsSync(socketPath)) throw Errors.redactNoSocket.create(socketPath, 'no socket file: the node is not running, or runs without --enable-unix-socket');
  return socketPath;
}

/** Every record to redact, grouped by chunk file, after refusing what cannot be redacted. */
function recordsByChunk(replies: Awaited<ReturnType<RedactionClient['positions']>>): Map<string, Array<{ event: EventReference; position: EventPositionReply }>> {
  const byChunk = new Map<string, Array<{ event: EventReference; position: EventPositionReply }>>();
  for (const { stream, eventNumber, positions } of replies) {
    const event = { streamName: stream, eventNumber };
    if (positions.length === 0) throw Errors.redactEventNotFound.create(formatEvent(event), 'the node has no such event');
    for (const position of positions) {
      if (position.isTombstone) throw Errors.redactEventNotFound.create(formatEvent(event), 'it is the tombstone of a deleted stream');
      if (!position.isCompleted) throw Errors.redactChunkNotCompleted.create(formatEvent(event), position.chunkFileName);
      const list = byChunk.get(position.chunkFileName) ?? [];
      list.push({ event, position });
      byChunk.set(position.chunkFileName, list);
    }
  }
  return byChunk;
}

export async function redact(options: RedactOptions): Promise<RedactResult> {
  const { dbPath, dryRun = false } = options;
  const client = new RedactionClient(checkDataDirectory(dbPath));
  try {
    const lockId = await client.lock();
    await options.onStep?.('locked');
    let result;
    try {
      result = await redactLocked(client, lockId, options);
    } catch (error) {
      // The node releases the lock when the connection closes anyway; this only makes it prompt.
      await client.release(lockId).catch(() => undefined);
      throw error;
    }
    await client.release(lockId);
    await options.onStep?.('released');
    return { dbPath, dryRun, ...result };
  } finally {
    client.close();
  }
}

async function redactLocked(client: RedactionClient, lockId: string, options: RedactOptions): Promise<Omit<RedactResult, 'dbPath' | 'dryRun'>> {
  const byChunk = recordsByChunk(await client.positions(options.events));
  await options.onStep?.('positions');
  const events: RedactedEvent[] = [];
  const chunksSwitched: string[] = [];
  let bytesCopied = 0;
  for (const [chunkFile, records] of byChunk) {
    const pending = records.filter(({ position }) => !position.isRedacted);
    let newChunkFile: string | undefined;
    if (pending.length > 0 && !options.dryRun) {
      options.onProgress?.({ phase: 'redacting', file: chunkFile, filesCopied: chunksSwitched.length, bytesCopied });
      newChunkFile = await redactChunk(client, lockId, options, chunkFile, pending.map(({ event, position }) => ({ event, fileOffset: position.fileOffset })));
      if (newChunkFile) {
        chunksSwitched.push(newChunkFile);
        bytesCopied += statSync(join(options.dbPath, newChunkFile)).size;
      }
    }
    for (const { event, position } of records) {
      events.push({ stream: event.streamName, eventNumber: event.eventNumber, chunkFile, newChunkFile, alreadyRedacted: position.isRedacted });
    }
  }
  options.onProgress?.({ phase: 'done', filesCopied: chunksSwitched.length, bytesCopied });
  return { events, chunksSwitched };
}

/** Copies, redacts and switches one chunk; the copy is deleted if anything fails. */
async function redactChunk(client: RedactionClient, lockId: string, options: RedactOptions, chunkFile: string, records: RecordToRedact[]): Promise<string | undefined> {
  const copyName = `${chunkFile}.${process.pid}.redact.tmp`;
  const copyPath = join(options.dbPath, copyName);
  try {
    if ((await writeRedactedCopy(join(options.dbPath, chunkFile), copyPath, records)) === 0) return undefined;
    await options.onStep?.('copied');
    const switched = await client.switchChunk(lockId, chunkFile, copyName);
    await options.onStep?.('switched');
    return switched;
  } catch (error) {
    await unlink(copyPath).catch(() => undefined);
    throw error;
  }
}
