/**
 * Record frames a replica handed to its log appender that are not durable yet. The follower
 * reads on while they are flushed, so that what arrives meanwhile joins the next group commit,
 * up to a bound in bytes: past it, it stops reading, and TCP holds the leader back. The appender
 * settles writes in the order they were handed over, so the last one settling means all did.
 */
export class WritesInFlight {
  private readonly pending = new Set<Promise<void>>();
  private bytes = 0;
  private failure: Error | undefined;
  private last: Promise<void> = Promise.resolve();

  constructor(private readonly bytesMax: number) {}

  add(write: Promise<void>, bytes: number): void {
    this.bytes += bytes;
    const tracked: Promise<void> = write.then(
      () => undefined,
      (error: Error) => {
        this.failure ??= error;
      },
    ).finally(() => {
      this.bytes -= bytes;
      this.pending.delete(tracked);
    });
    this.pending.add(tracked);
    this.last = tracked;
  }

  /** Runs `then` once every write added so far is durable, unless one failed. */
  afterAll(then: () => void): void {
    void this.last.then(() => {
      if (this.failure === undefined) then();
    });
  }

  /** Waits while more than the bound is in flight; throws the first failure. */
  async room(): Promise<void> {
    while (this.bytes > this.bytesMax && this.failure === undefined) await Promise.race(this.pending);
    this.throwFailure();
  }

  /** Waits for every write; throws the first failure. */
  async settled(): Promise<void> {
    await Promise.all(this.pending);
    this.throwFailure();
  }

  private throwFailure(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}
