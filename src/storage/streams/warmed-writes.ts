/**
 * Writes reach the writer with the state they are decided on already in memory. A stream-info
 * miss inside a group commit would read index files and chunks while every write of the commit
 * waits, so the stream's last event numbers and metadata are looked up before the write is
 * submitted, off the event loop when they are cold (`warm`). Writes are submitted in the order
 * they came: one whose stream is cold holds back those after it until it is warm, as a client
 * that issues writes one after another (a projection's emitter) counts on that order.
 */
export class WarmedWrites {
  /** Settles once the last write held back was submitted. */
  private tail: Promise<void> | undefined;
  private heldBack = 0;

  /** `warm` reads a stream's state into memory: undefined when it was there already, or the warming under way. */
  constructor(private readonly warm: (streamName: string) => Promise<void> | undefined) {}

  /** Calls `submit` once `streamName`'s state is in memory and every earlier write was submitted. */
  submit<T>(streamName: string, submit: () => Promise<T>): Promise<T> {
    // Warming starts now, beside the writes held back before it.
    const warming = this.warm(streamName)?.catch(() => {
      // The write is submitted all the same: the writer meets the error where it decides and reports it.
    });
    if (warming === undefined && this.heldBack === 0) return submit();
    this.heldBack++;
    let submitted!: Promise<T>;
    // Never rejects, so a failed write holds back none after it.
    const turn = Promise.all([this.tail, warming]).then(() => {
      this.heldBack--;
      // A submit that throws rejects this write's promise alone.
      submitted = new Promise<T>((resolve) => resolve(submit()));
    });
    this.tail = turn;
    return turn.then(() => submitted);
  }
}
