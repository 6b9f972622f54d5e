/**
 * The node's connection to etcd and the names of the cluster's keys. Every unary request carries
 * a deadline: without one, a request to an etcd that lost quorum waits forever, and the node would
 * never notice that etcd is unreachable.
 */
import { Etcd3, type Watcher } from 'etcd3';

export interface ClusterKeys {
  /** Prefix of every member's record: `/svcdb/<cluster>/members/`. */
  readonly members: string;
  readonly leader: string;
  /** Written by each node that sees the leader gone, so that every node publishes its position anew. */
  readonly electionRound: string;
  member(id: string): string;
}

export function clusterKeys(prefix: string, clusterName: string): ClusterKeys {
  const root = `/${prefix}/${clusterName}`;
  return {
    members: `${root}/members/`,
    leader: `${root}/leader`,
    electionRound: `${root}/election-round`,
    member: (id) => `${root}/members/${id}`,
  };
}

/** A broken watch is opened again after 100 ms, doubling up to a second. */
const WATCH_RETRY_FIRST_MS = 100;
const WATCH_RETRY_MAX_MS = 1000;

interface Backoff {
  readonly duration: number;
  next(): Backoff;
}

/**
 * The client's own default doubles up to 30 s: a member that saw etcd away for a while would
 * learn of changes up to 30 s after etcd came back, and a pending retry would hold a closing
 * process open that long.
 */
function watchBackoff(duration: number): Backoff {
  return { duration, next: () => watchBackoff(Math.min(duration * 2, WATCH_RETRY_MAX_MS)) };
}

export function connectEtcd(endpoints: readonly string[], requestTimeoutMs: number): Etcd3 {
  return new Etcd3({
    hosts: [...endpoints],
    dialTimeout: requestTimeoutMs,
    // The client starts from the backoff's next(): the first retry waits WATCH_RETRY_FIRST_MS.
    faultHandling: { watchBackoff: watchBackoff(WATCH_RETRY_FIRST_MS / 2) },
    // Watches and lease keepalives are streams that live on; only single requests get a deadline.
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + requestTimeoutMs }),
  });
}

/** Call options for one request with its own deadline. */
export function deadline(requestTimeoutMs: number): { deadline: number } {
  return { deadline: Date.now() + requestTimeoutMs };
}

/**
 * Cancels watches, waiting at most `timeoutMs`: a cancel waits for etcd to confirm it on the watch
 * stream, which never happens while etcd is away; closing the client ends the stream anyway.
 */
export async function cancelWatches(watchers: readonly Watcher[], timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  await Promise.race([Promise.all(watchers.map((watcher) => watcher.cancel().catch(() => undefined))), timeout]);
  clearTimeout(timer);
}

/** etcd revisions are int64 decimal strings; a cluster's stay far below 2^53. */
export function revision(text: string | undefined): number {
  return text === undefined ? 0 : Number(text);
}
