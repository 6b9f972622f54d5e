/**
 * What the redaction socket serves: the chunk-switch lock held by one connection at a time,
 * event positions, and chunk switches checked by name before the engine checks their contents.
 * A lock is released when its connection closes (a redactor that dies frees it), and then any
 * `*.redact.tmp` file a redactor left in the database directory is deleted.
 */
import { readdirSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Errors } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { ReplaceOptions } from '../../storage/log/chunk-replacement.js';
import { COPIES_CHECKED_AT_ONCE, type CheckedCopy } from '../../storage/maintenance/redacted-chunk-check.js';
import type { ChunkSwitchHold } from '../../storage/log/chunk-switch-lock.js';
import type { Engine } from '../../storage/engine.js';
import type { EventPosition } from '../../storage/read/event-positions.js';
import { METADATA_STREAM_PREFIX } from '../../storage/streams/stream-metadata.js';
import { isRedactedCopy, isTempFile } from '../../storage/layout.js';
import { interpretedAs } from './interpreted-events.js';

export type RedactionStorage = Pick<
  Engine, 'takeChunkSwitchLock' | 'releaseChunkSwitchLock' | 'chunkSwitchHoldOf' | 'eventPositions' | 'checkRedactedCopies' | 'switchRedactedChunk'
>;

/** A check of a copy's contents, started by check() and used by the switch of that copy. */
interface PendingCheck {
  lockId: string;
  target: string;
  result: Promise<CheckedCopy | Error>;
}

export interface EventPositions {
  stream: string;
  eventNumber: number;
  positions: EventPosition[];
}

/** The name of a copy the switch accepts: a plain name of a .tmp file in the database directory. */
function checkCopyName(name: unknown): string {
  const copy = checkFileName(name, 'newChunkFile');
  if (!isTempFile(copy)) throw Errors.storageReplacementInvalid.create(copy, 'the new chunk file must have the .tmp extension');
  return copy;
}

/** A file name the switch accepts: one plain name in the database directory. */
function checkFileName(name: unknown, what: string): string {
  if (typeof name !== 'string' || name.length === 0) throw Errors.redactRequestInvalid.create(`${what} must be a file name`);
  if (name.includes('/') || name.includes('\\') || name.includes('..')) {
    throw Errors.storageReplacementInvalid.create(name, `${what} must name a file in the database directory, without /, \\ or ..`);
  }
  return name;
}

export class RedactionService {
  /** The connection holding the lock, by lock id. */
  private readonly holders = new Map<string, { connection: number; hold: ChunkSwitchHold }>();
  /** Checks started and not yet used, by copy file name. */
  private readonly checks = new Map<string, PendingCheck>();

  constructor(
    private readonly storage: RedactionStorage,
    private readonly dbPath: string,
    private readonly logger: Logger,
    /** Hears each step of a switch (crash tests kill the node there). */
    private readonly onSwitchStep?: ReplaceOptions['onStep'],
  ) {}

  lock(connection: number): string {
    const hold = this.storage.takeChunkSwitchLock('redaction');
    this.holders.set(hold.id, { connection, hold });
    this.logger.info({ lockId: hold.id }, 'redaction lock taken');
    return hold.id;
  }

  async release(lockId: string): Promise<boolean> {
    const held = this.holders.get(lockId);
    if (!held) return false;
    this.holders.delete(lockId);
    // A check still running stops at its next block; its copy is deleted below.
    for (const [copy, check] of this.checks) if (check.lockId === lockId) this.checks.delete(copy);
    this.storage.releaseChunkSwitchLock(held.hold);
    await this.removeCopies();
    this.logger.info({ lockId }, 'redaction lock released');
    return true;
  }

  /** A connection closed: a lock it held ends with it. */
  async connectionClosed(connection: number): Promise<void> {
    for (const [lockId, held] of this.holders) {
      if (held.connection === connection) await this.release(lockId);
    }
  }

  /**
   * Where each event's records lie; refused for a metadata event and for the other events the
   * node reads to decide who may do what (interpreted-events.ts), which cannot be redacted.
   */
  positions(events: ReadonlyArray<{ stream: string; eventNumber: number }>): EventPositions[] {
    const metadata = events.find(({ stream }) => stream.startsWith(METADATA_STREAM_PREFIX));
    if (metadata) throw Errors.redactMetadataEvent.create(`${metadata.eventNumber}@${metadata.stream}`, metadata.stream.slice(METADATA_STREAM_PREFIX.length));
    const found = events.map(({ stream, eventNumber }) => ({ stream, eventNumber, positions: this.storage.eventPositions(stream, eventNumber) }));
    for (const { stream, eventNumber, positions } of found) {
      const what = positions.map((position) => interpretedAs(stream, position.eventType)).find((reason) => reason !== undefined);
      if (what !== undefined) throw Errors.redactInterpretedEvent.create(`${eventNumber}@${stream}`, what);
    }
    return found;
  }

  /** The hold of a lock the caller names, or the refusal: the lock must be taken first. */
  private holdOf(lockId: string): ChunkSwitchHold {
    const held = this.holders.get(lockId);
    if (!held || !this.storage.chunkSwitchHoldOf(lockId)) throw Errors.redactRequestInvalid.create(`lock ${lockId} is not held; take the lock first`);
    return held.hold;
  }

  /**
   * Starts checking the contents of copies (four at most, one pass for all) while the redactor
   * still computes their hashes; the switch of each copy then waits for its result. Refused at
   * once for a name, target or lock the switch would refuse.
   */
  check(lockId: string, chunks: ReadonlyArray<{ targetChunkFile: unknown; newChunkFile: unknown }>): string[] {
    const hold = this.holdOf(lockId);
    if (chunks.length === 0 || chunks.length > COPIES_CHECKED_AT_ONCE) {
      throw Errors.redactRequestInvalid.create(`chunks must list 1 to ${COPIES_CHECKED_AT_ONCE} copies to check`);
    }
    const named = chunks.map(({ targetChunkFile, newChunkFile }) => ({
      target: checkFileName(targetChunkFile, 'targetChunkFile'), copy: checkCopyName(newChunkFile),
    }));
    const stopped = () => (this.holders.has(lockId) ? undefined : Errors.redactRequestInvalid.create(`lock ${lockId} was released during the check`));
    const results = this.storage.checkRedactedCopies(named.map(({ target, copy }) => ({ targetFileName: target, tempPath: join(this.dbPath, copy) })), hold, stopped);
    named.forEach(({ target, copy }, index) => {
      const result = results.then((found) => found[index]);
      // Used by the switch, or by nobody when the redactor goes away: never unobserved.
      result.catch(() => undefined);
      this.checks.set(copy, { lockId, target, result });
    });
    return named.map(({ copy }) => copy);
  }

  async switchChunk(lockId: string, targetChunkFile: unknown, newChunkFile: unknown): Promise<string> {
    const target = checkFileName(targetChunkFile, 'targetChunkFile');
    const copy = checkCopyName(newChunkFile);
    const hold = this.holdOf(lockId);
    const pending = this.checks.get(copy);
    this.checks.delete(copy);
    let checked: CheckedCopy | undefined;
    if (pending && pending.lockId === lockId && pending.target === target) {
      const found = await pending.result;
      if (found instanceof Error) throw found;
      checked = found;
    }
    const switched = await this.storage.switchRedactedChunk(target, join(this.dbPath, copy), hold, this.onSwitchStep, checked);
    this.logger.info({ target, chunk: switched }, 'redacted chunk switched in');
    return switched;
  }

  /** Deletes the redactor's copies; the lock is free, so none of them is in use. */
  private async removeCopies(): Promise<void> {
    for (const name of readdirSync(this.dbPath)) {
      if (isRedactedCopy(name)) await unlink(join(this.dbPath, name)).catch(() => undefined);
    }
  }
}
