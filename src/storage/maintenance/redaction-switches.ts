/**
 * Redaction's side of the chunk-switch seam: which redacted copies a redactor may hand in, and
 * switching them in. A copy is a regular `*.tmp` file in the database directory, made from the
 * chunk file that is active and completed for its chunk number now; its contents are checked
 * against that chunk (redacted-chunk-check.ts, replacement-check.ts) before it replaces it.
 */
import { lstatSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { Errors } from '../../common/errors.js';
import type { Chunk } from '../log/chunk.js';
import { parseChunkFileName } from '../log/chunk-format.js';
import type { ReplaceOptions } from '../log/chunk-replacement.js';
import type { ChunkSwitchHold } from '../log/chunk-switch-lock.js';
import type { TransactionLog } from '../log/transaction-log.js';
import type { ChunkSwitches } from './chunk-switches.js';
import { checkRedactedCopies, type CheckedCopy } from './redacted-chunk-check.js';
import { replacementValidator } from './replacement-check.js';

/** A redacted copy at `tempPath` of the chunk file `targetFileName`. */
export interface RedactedCopy {
  targetFileName: string;
  tempPath: string;
}

export class RedactionSwitches {
  constructor(
    private readonly log: TransactionLog,
    private readonly dbPath: string,
    private readonly switches: ChunkSwitches,
    private readonly checkOpen: () => void,
  ) {}

  /**
   * Checks the contents of up to four redacted copies against their targets in one pass
   * (redacted-chunk-check.ts), before their hashes need to be written: each result is handed to
   * `switchChunk`, or is the copy's refusal. A copy or target refused by name is refused at once
   * (thrown, not a rejection); `stopped` ends the check early (its error is the result).
   */
  checkCopies(copies: readonly RedactedCopy[], hold: ChunkSwitchHold, stopped?: () => Error | undefined): Promise<Array<CheckedCopy | Error>> {
    const targets = copies.map((copy) => this.target(copy, hold));
    // The previous batch's replaced files: deleted now, so that a long redaction holds one batch of them at most.
    void this.log.deleteReplacedFiles();
    return checkRedactedCopies(copies.map(({ tempPath }, index) => ({ copyPath: tempPath, target: targets[index] })), stopped);
  }

  /**
   * Switches in a redacted copy of its target, which must be the active file for its chunk
   * number and completed. The copy must differ from it only by redacted event data, as checked
   * now or by checkCopies (`checked`). `hold` is the redaction's hold of the lock. Returns the
   * file name the chunk has now.
   */
  async switchChunk(copy: RedactedCopy, hold: ChunkSwitchHold, onStep?: ReplaceOptions['onStep'], checked?: CheckedCopy): Promise<string> {
    const target = this.target(copy, hold);
    const chunkNumber = target.chunkNumber;
    let switched = '';
    await this.switches.replace(copy.tempPath, replacementValidator({ kind: 'redaction', target, checked }), {
      // A redaction switches its batch of checked copies one after another, then checks the next batch or lets go.
      deleteReplacedLater: true,
      onStep: async (step) => {
        if (step === 'switched') switched = this.log.chunkAt(chunkNumber)!.fileName;
        await onStep?.(step);
      },
    }, hold);
    return switched;
  }

  /** The active, completed chunk a redacted copy would replace, or the coded refusal. */
  private target({ targetFileName, tempPath }: RedactedCopy, hold: ChunkSwitchHold): Chunk {
    this.checkOpen();
    this.switches.checkHold(hold);
    if (!this.switches.holdOf(hold.id)) throw Errors.redactRequestInvalid.create('take the chunk-switch lock before switching a chunk');
    const refuse = (why: string) => Errors.storageReplacementInvalid.create(basename(tempPath), why);
    if (dirname(tempPath) !== this.dbPath || !tempPath.endsWith('.tmp')) throw refuse('it is not a .tmp file in the database directory');
    // A symbolic link would switch in (or have the node write to) a file outside the database directory.
    const copy = lstatSync(tempPath, { throwIfNoEntry: false });
    if (copy?.isSymbolicLink()) throw refuse('it is a symbolic link; the copy must be a regular file in the database directory');
    if (copy !== undefined && !copy.isFile()) throw refuse('it is not a regular file');
    const parsed = parseChunkFileName(targetFileName);
    if (!parsed) throw refuse(`the target ${targetFileName} is not a chunk file name (chunk-NNNNNN.NNNNNN)`);
    const active = this.log.chunkAt(parsed.chunkNumber);
    if (!active || active.fileName !== targetFileName) {
      throw refuse(`the target ${targetFileName} is not the active file for chunk ${parsed.chunkNumber}${active ? ` (${active.fileName} is)` : ''}`);
    }
    if (!active.isCompleted) throw refuse(`the target ${targetFileName} is not completed`);
    return active;
  }
}
