/**
 * Keeps chaser.chk near how far the log has been processed. The index takes each commit as it is
 * published, so that is the readable end of the log. chaser.chk only saves work at the next start
 * (less of the log to re-read into the index), so it is written once a second rather than at
 * every commit, a full disk postpones it, and a clean close writes it a last time.
 *
 * writer.chk is flushed first, at the same times: group commits move it on without an fsync
 * (appender.ts), so this bounds what recovery walks past it to about a second of writes, and
 * chaser.chk is never durable past a durable writer.chk.
 */
import type { Logger } from '../../common/logger.js';
import { isTransientStorageError } from '../disk/file-write.js';
import type { Checkpoint } from './checkpoint.js';

const CHASER_FLUSH_INTERVAL_MS = 1000;

export class ChaserFlush {
  private timer: NodeJS.Timeout | undefined;

  /**
   * `position` is how far the log has been processed now; `isOpen` says whether the engine still
   * runs (a stopped engine writes nothing more); `fail` stops it when a write fails for good.
   */
  constructor(
    private readonly checkpoint: Checkpoint,
    private readonly writerCheckpoint: Checkpoint,
    private readonly position: () => number,
    private readonly isOpen: () => boolean,
    private readonly fail: (error: Error) => void,
    private readonly logger: Logger,
  ) {}

  /** Begins the flushes once a second; called once the engine's start can no longer fail. */
  start(): void {
    this.timer = setInterval(() => void this.flush(), CHASER_FLUSH_INTERVAL_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async flush(): Promise<void> {
    if (!this.isOpen()) return;
    const position = this.position();
    try {
      await this.writerCheckpoint.flush();
      if (this.checkpoint.value !== position) await this.checkpoint.writeAsync(position);
    } catch (error) {
      // chaser.chk only saves work at the next start; a full disk postpones it to the next tick.
      if (isTransientStorageError(error)) return;
      this.fail(error as Error);
    }
  }

  /** The last writes, at a clean close (writer.chk's fsync failing is fatal); a full disk leaves the older value (a little more to re-read at the next start). */
  persistOnClose(): void {
    this.writerCheckpoint.flushSync();
    try {
      this.checkpoint.write(this.position());
    } catch (error) {
      if (!isTransientStorageError(error)) throw error;
      this.logger.warn({ code: (error as { code?: string }).code }, 'chaser.chk not updated at close: the disk is full; the next start re-reads a little more of the log');
    }
  }
}
