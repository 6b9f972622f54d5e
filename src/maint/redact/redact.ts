/**
 * `svcdb redact`: blanks the data of listed events on a running node. Over the node's unix
 * socket it takes the chunk-switch lock, asks where each event's records lie, refuses before
 * changing anything when an event is missing, a tombstone or in the chunk still being written,
 * then writes redacted copies of the chunks next to them, four at a time, and has the node check
 * and switch each in. The lock is released at the end, or by the node when this process dies.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Errors } from '../../common/errors.js';
import type { ProgressListener } from '../../common/progress.js';
import { errnoCode, isDiskFull } from '../../storage/disk/file-write.js';
import { CheckpointName, SOCKET_FILE_NAME, isChunkFile, isRedactedCopy, redactedCopyName } from '../../storage/layout.js';
import { CHUNKS_COPIED_AT_ONCE, writeRedactedCopies } from './chunk-copy.js';
import { formatEvent, type EventReference } from './events-list.js';
import { RedactionClient, type EventPositionReply } from './socket-client.js';

/**
 * The steps of a run, in order: the lock taken, the positions found, the node asked to check a
 * batch's copies (their bytes are final; their hashes are still being computed), each copy
 * complete, each switched, the lock released.
 */
export type RedactStep = 'locked' | 'positions' | 'checking' | 'copied' | 'switched' | 'released';

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
  if (!existsSync(join(dbPath, CheckpointName.writer)) || !readdirSync(dbPath).some(isChunkFile)) {
    throw Errors.redactNotDataDirectory.create(dbPath, 'it holds no writer.chk and no chunk files');
  }
  const socketPath = join(dbPath, SOCKET_FILE_NAME);
  const socket = statSync(socketPath, { throwIfNoEntry: false });
  if (!socket) throw Errors.redactNoSocket.create(socketPath, 'no socket file: the node is not running, or runs without --enable-unix-socket');
  checkNodeUser(socketPath, socket.uid);
  return socketPath;
}

/**
 * Refuses to run as another user than the node's (`owner`, the owner of the socket it created).
 * Only root can: the socket is mode 0600. The copies would then belong to root, and the node,
 * which opens each copy to check and fsync it and serves it once switched in, could not.
 */
function checkNodeUser(socketPath: string, owner: number): void {
  const runningAs = process.geteuid?.();
  if (runningAs === undefined || runningAs === owner) return;
  throw Errors.redactWrongUser.create(socketPath, userName(runningAs), userName(owner));
}

/** The user name of `uid` from /etc/passwd, or the uid where it has none. */
function userName(uid: number): string {
  try {
    const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((entry) => entry.split(':')[2] === String(uid));
    if (line) return line.split(':')[0];
  } catch {
    // No passwd file: the uid alone names the user.
  }
  return `uid ${uid}`;
}

type ChunkRecords = Array<{ event: EventReference; position: EventPositionReply }>;

/** Every record to redact, grouped by chunk file, after refusing what cannot be redacted. */
function recordsByChunk(replies: Awaited<ReturnType<RedactionClient['positions']>>): Map<string, ChunkRecords> {
  const byChunk = new Map<string, ChunkRecords>();
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

/** `items` in lists of at most `size`, in order. */
function inBatches<T>(items: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size));
  return batches;
}

/**
 * Copies the chunks four at a time (hashed side by side), and has the node check each batch's
 * copies while their hashes are computed; then switches them in, in chunk order, one at a time,
 * while the next batch is being copied.
 */
async function redactLocked(client: RedactionClient, lockId: string, options: RedactOptions): Promise<Omit<RedactResult, 'dbPath' | 'dryRun'>> {
  const byChunk = recordsByChunk(await client.positions(options.events));
  await options.onStep?.('positions');
  const switchedTo = new Map<string, string>();
  const chunksSwitched: string[] = [];
  const progress = { filesCopied: 0, bytesCopied: 0 };
  const pending = [...byChunk].filter(([, records]) => records.some(({ position }) => !position.isRedacted));
  let switching: Promise<void> = Promise.resolve();
  let switchFailed = false;
  try {
    for (const batch of options.dryRun ? [] : inBatches(pending, CHUNKS_COPIED_AT_ONCE)) {
      // A refused or failed switch ends the run: no more copies (the await below throws it).
      if (switchFailed) break;
      options.onProgress?.({ phase: 'redacting', file: batch[0][0], ...progress });
      const copies = await copyBatch(client, lockId, options, batch);
      const previous = switching;
      switching = (async () => {
        await previous;
        for (const { chunkFile, copyName } of copies) {
          const newChunkFile = await client.switchChunk(lockId, chunkFile, copyName);
          await options.onStep?.('switched');
          switchedTo.set(chunkFile, newChunkFile);
          chunksSwitched.push(newChunkFile);
          progress.filesCopied++;
          progress.bytesCopied += statSync(join(options.dbPath, newChunkFile)).size;
        }
      })();
      // Its failure is seen by the next await of `switching`; until then it must not go unobserved.
      switching.catch(() => {
        switchFailed = true;
      });
    }
    await switching;
  } catch (error) {
    await switching.catch(() => undefined);
    await removeCopies(options.dbPath);
    if (isDiskFull(error)) throw Errors.redactDiskFull.create(options.dbPath, errnoCode(error) ?? (error as Error).message, chunksSwitched.length);
    throw error;
  }
  options.onProgress?.({ phase: 'done', ...progress });
  return { events: eventsOf(byChunk, switchedTo), chunksSwitched };
}

function eventsOf(byChunk: Map<string, ChunkRecords>, switchedTo: ReadonlyMap<string, string>): RedactedEvent[] {
  const events: RedactedEvent[] = [];
  for (const [chunkFile, records] of byChunk) {
    for (const { event, position } of records) {
      events.push({ stream: event.streamName, eventNumber: event.eventNumber, chunkFile, newChunkFile: switchedTo.get(chunkFile), alreadyRedacted: position.isRedacted });
    }
  }
  return events;
}

const copyNameOf = (chunkFile: string) => redactedCopyName(chunkFile, process.pid);

/**
 * Writes the redacted copies of up to four chunks; the node starts checking them as soon as their
 * contents are final. Returns the copies made (none for a chunk whose events were all redacted).
 */
async function copyBatch(
  client: RedactionClient, lockId: string, options: RedactOptions, batch: ReadonlyArray<[string, ChunkRecords]>,
): Promise<Array<{ chunkFile: string; copyName: string }>> {
  const chunks = batch.map(([chunkFile, records]) => ({
    chunkFile,
    sourcePath: join(options.dbPath, chunkFile),
    tempPath: join(options.dbPath, copyNameOf(chunkFile)),
    records: records.filter(({ position }) => !position.isRedacted).map(({ event, position }) => ({ event, fileOffset: position.fileOffset })),
  }));
  const checkContents = async (tempPaths: string[]) => {
    const made = chunks.filter(({ tempPath }) => tempPaths.includes(tempPath));
    if (made.length === 0) return;
    await client.checkChunks(lockId, made.map(({ chunkFile }) => ({ targetChunkFile: chunkFile, newChunkFile: copyNameOf(chunkFile) })));
    await options.onStep?.('checking');
  };
  const changed = await writeRedactedCopies(chunks, checkContents);
  const copies = chunks.filter((_, index) => changed[index] > 0).map(({ chunkFile }) => ({ chunkFile, copyName: copyNameOf(chunkFile) }));
  for (let i = 0; i < copies.length; i++) await options.onStep?.('copied');
  return copies;
}

/** Deletes this process's copies that were not switched in (a switch renames its copy away). */
async function removeCopies(dbPath: string): Promise<void> {
  for (const name of readdirSync(dbPath)) {
    if (isRedactedCopy(name, process.pid)) await unlink(join(dbPath, name)).catch(() => undefined);
  }
}
