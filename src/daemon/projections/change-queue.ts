/**
 * The changes to one projection (commands, query and config updates, delete) run one after the
 * other, in the order they came: each reads the definition the one before it left, so every
 * accepted change bumps the version once and takes effect, and the status at the end agrees
 * with the last change. Changes to different projections do not wait for each other.
 */
export class ChangeQueue {
  /** Per projection name: settles when its last queued change has run. */
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `change` once the changes queued before it for `name` have run; its result or error is the caller's. */
  run<T>(name: string, change: () => Promise<T>): Promise<T> {
    const result = (this.tails.get(name) ?? Promise.resolve()).then(change);
    const tail = result.then(() => undefined, () => undefined);
    this.tails.set(name, tail);
    void tail.then(() => {
      if (this.tails.get(name) === tail) this.tails.delete(name);
    });
    return result;
  }

  /** Settles once every change queued so far has run. */
  async settled(): Promise<void> {
    await Promise.all(this.tails.values());
  }
}
