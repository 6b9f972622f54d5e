/**
 * Where a replica's log and its leader's part, from their epochs. Every epoch record a replica
 * holds came from a leader; the newest one both logs hold (same id at the same position) starts
 * a stretch of log both took from the same term. Past it, the leader's log runs to its next
 * epoch (or its end); the replica's may run further only with records the leader no longer has
 * (the leader was restored from a backup, say). So the logs agree up to the smaller of the
 * replica's end and that point, and the replica cuts anything after it.
 */
export interface EpochMark {
  epochPosition: number;
  epochNumber: number;
  epochId: string;
}

export interface HandshakeRequest {
  /** The replica's epochs, newest first. */
  epochs: EpochMark[];
  /** The replica's writer checkpoint. */
  writerCheckpoint: number;
}

export interface HandshakeReply {
  /** The last position the replica's log has in common with the leader's: it cuts back to it, then asks for what follows. */
  commonPosition: number;
  /** The leader's chunk size: a replica's log must have the same, positions depend on it. */
  chunkSizeBytes: number;
  /** The leader's durable end now. */
  leaderWriterCheckpoint: number;
}

/** `leaderEpochs` newest first; `leaderEnd` the leader's durable end. */
export function commonPosition(request: HandshakeRequest, leaderEpochs: readonly EpochMark[], leaderEnd: number): number {
  for (const theirs of request.epochs) {
    const index = leaderEpochs.findIndex((ours) => ours.epochPosition === theirs.epochPosition && ours.epochId === theirs.epochId);
    if (index < 0) continue;
    // The leader's epoch after the shared one, if any: newest first, so the one before it in the list.
    const termEnd = index > 0 ? leaderEpochs[index - 1].epochPosition : leaderEnd;
    return Math.min(request.writerCheckpoint, termEnd, leaderEnd);
  }
  return 0;
}

/** What the handshake needs to know of the leader's chunk that holds a position. */
export interface ChunkSpan {
  startNumber: number;
  /** Rewritten by a scavenge (or merged): its records are not at their positions. */
  mapped: boolean;
}

/**
 * A replica that stopped part way into a chunk the leader has rewritten since cannot go on from
 * inside it: the leader can only send that chunk whole. The common position moves back to the
 * chunk's start, and the replica cuts its log back there.
 */
export function outsideRewrittenChunk(position: number, chunkSizeBytes: number, chunkAt: (chunkNumber: number) => ChunkSpan | undefined): number {
  const chunk = chunkAt(Math.floor(position / chunkSizeBytes));
  if (!chunk?.mapped) return position;
  return Math.min(position, chunk.startNumber * chunkSizeBytes);
}
