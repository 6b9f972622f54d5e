/**
 * What a running projection reports in its statistics beside its state: the events it has read
 * and not yet handed to its handlers, the time its handlers took, and the writes under way,
 * split by whether the checkpoint being written waits for them.
 */

export interface RunStatistics {
  bufferedEvents: number;
  /** Milliseconds spent in the projection's handlers (or the system projection's code) since it started. */
  coreProcessingTime: number;
  readsInProgress: number;
  writesInProgress: number;
  writePendingEventsBeforeCheckpoint: number;
  writePendingEventsAfterCheckpoint: number;
  /** `Requested` while a checkpoint is written and not yet durable; empty otherwise. */
  checkpointStatus: string;
}

interface PendingWrite {
  events: number;
  /** A checkpoint was requested after this write: that checkpoint waits for it. */
  beforeCheckpoint: boolean;
}

export class RunCounters {
  private processingMs = 0;
  private pagesWaiting = 0;
  private eventsWaiting = 0;
  /** Events held back by the projection itself (reordering), set by the runner. */
  held = 0;
  private checkpointsWriting = 0;
  private readonly writes = new Set<PendingWrite>();

  /** A page read from the log, waiting for the pages before it. */
  pageRead(events: number): void {
    this.pagesWaiting += 1;
    this.eventsWaiting += events;
  }

  pageTaken(events: number): void {
    this.pagesWaiting -= 1;
    this.eventsWaiting -= events;
  }

  processed(elapsedMs: number): void {
    this.processingMs += elapsedMs;
  }

  /** A write of `events` events started; the returned function is called once it is done. */
  writeStarted(events: number): () => void {
    const write: PendingWrite = { events, beforeCheckpoint: false };
    this.writes.add(write);
    return () => void this.writes.delete(write);
  }

  /** A checkpoint was requested: it is durable only after every write under way. */
  checkpointStarted(): () => void {
    for (const write of this.writes) write.beforeCheckpoint = true;
    this.checkpointsWriting += 1;
    return () => {
      this.checkpointsWriting -= 1;
    };
  }

  /** The counts now; the checkpoint's own write is among the writes in progress. */
  snapshot(writesInProgress: number): RunStatistics {
    let before = 0;
    let after = 0;
    for (const write of this.writes) {
      if (write.beforeCheckpoint) before += write.events;
      else after += write.events;
    }
    return {
      bufferedEvents: this.eventsWaiting + this.held, coreProcessingTime: Math.round(this.processingMs), readsInProgress: this.pagesWaiting,
      writesInProgress, writePendingEventsBeforeCheckpoint: before, writePendingEventsAfterCheckpoint: after,
      checkpointStatus: this.checkpointsWriting > 0 ? 'Requested' : '',
    };
  }

  /** A new run starts from nothing; time spent in earlier runs is not counted. */
  reset(): void {
    this.processingMs = 0;
    this.held = 0;
  }
}
