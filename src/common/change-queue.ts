/**
 * Changes to one thing (a projection, a subscription group), by its key, run one after the other
 * in the order they came: each sees what the one before it left. Changes to different keys do not
 * wait for each other; a change that fails does not stop the next.
 */
export class ChangeQueue {
  /** Per key: settles when its last queued change has run. */
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `change` once the changes queued before it for `key` have run; its result or error is the caller's. */
  run<T>(key: string, change: () => Promise<T>): Promise<T> {
    const result = (this.tails.get(key) ?? Promise.resolve()).then(change);
    const tail = result.then(() => undefined, () => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Settles once every change queued so far has run. */
  async settled(): Promise<void> {
    await Promise.all(this.tails.values());
  }
}
