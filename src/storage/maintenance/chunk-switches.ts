/**
 * The one chunk-replacement seam that scavenge and redaction share: switching a new chunk file in
 * for completed chunks of the log, one switch at a time, each validated first
 * (replacement-check.ts), under the node-wide chunk-switch lock that makes scavenge and
 * redaction exclude each other. A scavenge comes here with its own rewrites (`rewrite`), a
 * redaction with copies the redactor wrote (redaction-switches.ts).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Errors } from '../../common/errors.js';
import { fileSystem } from '../disk/file-system.js';
import type { ReplaceOptions, ReplacementValidator } from '../log/chunk-replacement.js';
import { ChunkSwitchLock, type ChunkSwitchHold, type ChunkSwitchHolderKind } from '../log/chunk-switch-lock.js';
import type { RecordHead } from '../log/record.js';
import type { TransactionLog } from '../log/transaction-log.js';
import { rewriteRange, type RewriteOptions, type RewriteResult } from './chunk-rewrite.js';
import { replacementValidator } from './replacement-check.js';

/** What the switches need of the engine they work in. */
export interface ChunkSwitchEngine {
  readonly log: TransactionLog;
  readonly dbPath: string;
  /** Throws SVCDB_ERR_STORAGE_CLOSED unless the engine is open. */
  checkOpen(): void;
  /** Stops the engine: a damaged record was found. */
  fail(error: Error): void;
  /** Told after each switch: facts cached from the replaced chunks may be stale. */
  switched(): void;
}

export class ChunkSwitches {
  /** Switches, one after the other. */
  private queue: Promise<void> = Promise.resolve();
  /** Held by a scavenge or a redaction across many switches; they exclude each other. */
  private readonly lock = new ChunkSwitchLock();

  constructor(private readonly engine: ChunkSwitchEngine) {}

  /**
   * Takes the lock for a scavenge or a redaction, to hold across many switches; refused with
   * SVCDB_ERR_CHUNK_SWITCH_LOCKED, naming the holder's kind, while another holds it.
   */
  take(kind: ChunkSwitchHolderKind): ChunkSwitchHold {
    this.engine.checkOpen();
    return this.lock.take(kind);
  }

  /** Releases the lock `hold` (or its id) holds; false when it does not hold it (any more). */
  release(hold: ChunkSwitchHold | string): boolean {
    const released = this.lock.release(hold);
    // The files a redaction's switches replaced go once it lets go (deleteReplacedLater).
    if (released) void this.engine.log.deleteReplacedFiles();
    return released;
  }

  /** Who holds the lock now: a running scavenge or redaction, or nobody. */
  get holder(): ChunkSwitchHold | undefined {
    return this.lock.holder;
  }

  /** The hold an id names, while it holds the lock. */
  holdOf(id: string): ChunkSwitchHold | undefined {
    return this.lock.holdOf(id);
  }

  /** Throws SVCDB_ERR_CHUNK_SWITCH_LOCKED unless the lock is free or `hold` holds it. */
  checkHold(hold: ChunkSwitchHold | undefined): void {
    this.lock.checkSwitch(hold);
  }

  /**
   * Switches in `tempPath` (a `*.tmp` file in the database directory) for the completed chunks
   * it covers, once `validate` accepts it (by default: a copy whose every record is the
   * original's); refused with SVCDB_ERR_STORAGE_REPLACEMENT_INVALID and nothing changed otherwise.
   */
  async replace(
    tempPath: string, validate: ReplacementValidator = replacementValidator({ kind: 'copy' }), options: ReplaceOptions = {}, hold?: ChunkSwitchHold,
  ): Promise<void> {
    this.engine.checkOpen();
    this.lock.checkSwitch(hold);
    // Without a hold of its own, a switch holds the lock for its own duration, as a scavenge step.
    const own = hold ?? this.lock.take('scavenge');
    const run = this.queue.then(async () => {
      this.engine.checkOpen();
      this.lock.checkSwitch(own);
      await this.engine.log.replaceChunks(tempPath, validate, options);
      this.engine.switched();
    });
    this.queue = run.catch(() => undefined);
    try {
      await run;
    } finally {
      if (!hold) this.lock.release(own);
    }
  }

  /**
   * Rewrites chunks `startNumber`..`endNumber` (completed) keeping the records `keep` accepts,
   * packed, with a position map, and switches the result in: what a scavenge does to a chunk.
   */
  async rewrite(
    startNumber: number, endNumber: number, keep: (record: RecordHead) => boolean, options: RewriteOptions = {}, hold?: ChunkSwitchHold,
  ): Promise<RewriteResult> {
    const { log, dbPath } = this.engine;
    this.engine.checkOpen();
    this.lock.checkSwitch(hold);
    const source = log.rewriteSource(startNumber, endNumber);
    const fileBytesBefore = source.chunks.reduce((sum, chunk) => sum + chunk.fileBytes, 0);
    const tempPath = join(dbPath, `${randomUUID()}.rewrite.tmp`);
    let rewrite;
    try {
      rewrite = await rewriteRange(source, tempPath, keep, options);
    } catch (error) {
      // A damaged source record fails the engine, as any read of it does.
      if (Errors.storageChecksum.is(error) || Errors.storageCorrupt.is(error)) this.engine.fail(error);
      throw error;
    }
    const counts = { recordsKept: rewrite.kept, recordsRemoved: rewrite.removed };
    const written = rewrite.digest;
    if (!written) return { rewritten: false, ...counts, fileBytesBefore, fileBytesAfter: fileBytesBefore };
    try {
      await this.replace(tempPath, replacementValidator({ kind: 'rewrite', written: { from: source.chunks, digest: written } }), options, hold);
    } catch (error) {
      await fileSystem.unlink(tempPath).catch(() => undefined);
      throw error;
    }
    const fileBytesAfter = log.chunkAt(startNumber)!.fileBytes;
    return { rewritten: true, ...counts, fileBytesBefore, fileBytesAfter };
  }
}
