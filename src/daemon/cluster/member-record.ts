/**
 * What a node publishes about itself in etcd, under `/svcdb/<cluster>/members/<id>`, and how
 * records read back from etcd are checked: a record another program wrote, or an older svcdb,
 * must not be able to make a node believe something about a member that it did not say.
 */

export interface MemberRecord {
  readonly id: string;
  readonly httpUrl: string;
  /** Leader, Follower, CatchingUp, PreLeader, Unknown: what the node says of itself. */
  readonly state: string;
  /** The node's durable end of log (its writer checkpoint) when it published. */
  readonly writerCheckpoint: number;
  /** The number of the newest epoch in the node's log: the term its last records come from. */
  readonly epoch: number;
  readonly priority: number;
}

/** A member as read from etcd: its record and the etcd revision at which it was last written. */
export interface Member {
  readonly record: MemberRecord;
  readonly modRevision: number;
}

const isInteger = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value);

/** The record, or undefined when the bytes are not one (such a key is ignored, not trusted). */
export function parseMemberRecord(bytes: Buffer): MemberRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.id !== 'string' || typeof record.httpUrl !== 'string' || typeof record.state !== 'string') return undefined;
  if (!isInteger(record.writerCheckpoint) || !isInteger(record.epoch) || !isInteger(record.priority)) return undefined;
  return {
    id: record.id, httpUrl: record.httpUrl, state: record.state,
    writerCheckpoint: record.writerCheckpoint, epoch: record.epoch, priority: record.priority,
  };
}
