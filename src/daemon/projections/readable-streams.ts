/**
 * Which streams a user may read, for resolving links with that user's rights: a link into a
 * stream the user may not read points at nothing. Answers are remembered (a category's links
 * point into few streams, again and again), up to a bound.
 */
import type { Principal, StreamAccess } from '../services/stream-access.js';

const REMEMBERED_MAX = 10_000;

export class ReadableStreams {
  private readonly known = new Map<string, boolean>();

  constructor(private readonly access: StreamAccess, private readonly principal: Principal) {}

  has(streamName: string): boolean {
    let allowed = this.known.get(streamName);
    if (allowed !== undefined) return allowed;
    try {
      this.access.check(this.principal, 'read', streamName);
      allowed = true;
    } catch {
      allowed = false;
    }
    if (this.known.size >= REMEMBERED_MAX) this.known.clear();
    this.known.set(streamName, allowed);
    return allowed;
  }
}
