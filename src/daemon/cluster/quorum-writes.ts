/**
 * Quorum writes: a cluster leader's storage whose writes (append, delete, stream metadata) are
 * answered only once a majority of the cluster holds them durable, and only while the leader's
 * lease lets it acknowledge (Election.mayAcknowledge). A write is refused before it is made when
 * the lease may have lapsed or too few followers are live to make a majority; a write made that
 * no majority confirms in time is refused with SVCDB_ERR_CLUSTER_NO_QUORUM (it may still be
 * committed: the client retries with the same event ids, which the engine answers idempotently).
 * Reads and everything else go to the engine unchanged.
 */
import { Errors } from '../../common/errors.js';
import type { NodeStorage } from '../node-storage.js';
import type { QuorumTracker } from './quorum-tracker.js';

/**
 * How long a write waits for a majority. Followers report at least every second and a fsync takes
 * milliseconds, so a healthy majority answers far sooner; this is long enough to ride out a
 * follower's reconnect (its first backoffs are 100 to 800 ms) and a slow disk, and no longer than
 * the default lease TTL, past which a leader cut off from its followers is likely replaced anyway.
 */
export const QUORUM_WRITE_TIMEOUT_MS = 5000;

/** What a client is told to wait before retrying a refused write. */
const RETRY_AFTER_SECONDS = 1;

export interface QuorumGate {
  tracker: QuorumTracker;
  mayAcknowledge: () => boolean;
  timeoutMs: number;
  /**
   * False while the leader starts: its own writes then (default users, the projections' first
   * records) are made before any client can ask, and no follower can have reported yet.
   */
  enforced?: () => boolean;
}

type WriteMethod = 'append' | 'deleteStream' | 'setStreamMetadata';

export function quorumWrites(storage: NodeStorage, gate: QuorumGate): NodeStorage {
  const { tracker, mayAcknowledge, timeoutMs } = gate;
  const enforced = gate.enforced ?? (() => true);

  const acknowledged = async <T>(write: () => Promise<T>): Promise<T> => {
    if (!enforced()) return write();
    if (!mayAcknowledge()) throw Errors.clusterNoQuorum.create('this node\'s leader lease may have lapsed, so it writes nothing', RETRY_AFTER_SECONDS);
    const nodes = 1 + tracker.liveFollowers();
    if (nodes < tracker.majority) {
      throw Errors.clusterNoQuorum.create(`only ${nodes} node(s) of the cluster are in touch with the leader and ${tracker.majority} are needed, so it wrote nothing`, RETRY_AFTER_SECONDS);
    }
    const result = await write();
    // The durable end right after the write answered is at or past its end, and also covers an
    // idempotent repeat of a write made earlier and never acknowledged.
    const target = storage.logBytes().durableEnd;
    if (!await tracker.waitFor(target, timeoutMs)) {
      throw Errors.clusterNoQuorum.create(`no majority of the cluster confirmed position ${target} within ${timeoutMs} ms`, RETRY_AFTER_SECONDS);
    }
    // The wait may have outlasted the lease: another leader may exist by now.
    if (!mayAcknowledge()) throw Errors.clusterNoQuorum.create('this node\'s leader lease may have lapsed while the write waited for a majority', RETRY_AFTER_SECONDS);
    return result;
  };

  const writes: Pick<NodeStorage, WriteMethod> = {
    append: (...args) => acknowledged(() => storage.append(...args)),
    deleteStream: (...args) => acknowledged(() => storage.deleteStream(...args)),
    setStreamMetadata: (...args) => acknowledged(() => storage.setStreamMetadata(...args)),
  };
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(storage, {
    get(target, property) {
      if (Object.hasOwn(writes, property)) return writes[property as WriteMethod];
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      // Methods run on the engine itself (its private fields are not reachable through a proxy).
      if (!bound.has(property)) bound.set(property, (value as (...args: unknown[]) => unknown).bind(target));
      return bound.get(property);
    },
  });
}
