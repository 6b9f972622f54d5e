/**
 * The one seam where the streams service asks "may this caller do this to this stream?". The
 * node answers it with stream ACLs (security/stream-acl.ts).
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
