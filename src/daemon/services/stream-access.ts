/**
 * The one seam where the streams API asks "may this caller do this to this stream?". Until users
 * and ACLs exist, every caller may do everything; the security work replaces `allowAllAccess`
 * with a check against users, groups and stream ACLs, and nothing else has to change.
 */

/** Who is asking; undefined for an anonymous request. */
export interface Principal {
  name: string;
  groups: readonly string[];
}

export type StreamOperation = 'read' | 'write' | 'delete' | 'metadataRead' | 'metadataWrite';

export interface StreamAccess {
  /** Throws a coded 401 error when `principal` may not do `operation` on `streamName` ('$all' for the log). */
  check(principal: Principal | undefined, operation: StreamOperation, streamName: string): void;
}

export const allowAllAccess: StreamAccess = Object.freeze({
  check: () => undefined,
});
