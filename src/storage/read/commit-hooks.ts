/**
 * Hooks told of every group commit once it is durable and readable, before it is acknowledged:
 * for caches that must not answer from stale state after an acknowledged write (credentials,
 * default ACLs). Everything else that follows the log is a consumer (log-consumers.ts).
 */
import type { Logger } from '../../common/logger.js';
import type { CommittedWrite } from '../streams/write-types.js';

export type CommitHook = (writes: CommittedWrite[]) => void;

export class CommitHooks {
  private readonly hooks = new Set<CommitHook>();

  constructor(private readonly logger: Logger) {}

  /** Adds `hook`; returns what removes it. */
  add(hook: CommitHook): () => void {
    this.hooks.add(hook);
    return () => this.hooks.delete(hook);
  }

  /** Tells every hook of `writes`. A hook that throws is logged and dropped: it never fails the commit it was told of. */
  committed(writes: CommittedWrite[]): void {
    for (const hook of this.hooks) {
      try {
        hook(writes);
      } catch (error) {
        this.hooks.delete(hook);
        this.logger.error({ err: error }, 'a commit hook failed and was removed');
      }
    }
  }
}
