/**
 * Writers for the failover tests: each appends to a stream of its own with expected versions, and
 * retries an event whose outcome it does not know (a 503, a refused or broken connection, a 307
 * from a follower) with the same event id and expected version at whichever member leads, until
 * it gets a 201. A write that was made durable but not acknowledged is then acknowledged by the
 * retry (writes are idempotent), and one that was cut back is written again; so at the end each
 * stream must hold exactly the acknowledged events, in order.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADMIN_AUTH } from './auth.js';
import type { ClusterMember, TestCluster } from './cluster-processes.js';

/** The leader as last found, asked again at most every 100 ms however many writers ask. */
class LeaderFinder {
  private current: ClusterMember | undefined;
  private finding: Promise<ClusterMember | undefined> | undefined;

  constructor(private readonly cluster: TestCluster) {}

  get known(): ClusterMember | undefined {
    return this.current;
  }

  refresh(): Promise<ClusterMember | undefined> {
    this.finding ??= (async () => {
      try {
        for (const member of this.cluster.members) {
          if (await member.state() === 'leader') {
            this.current = member;
            return member;
          }
        }
        this.current = undefined;
        return undefined;
      } finally {
        await sleep(100);
        this.finding = undefined;
      }
    })();
    return this.finding;
  }
}

export interface WriterOutcome {
  /** Acknowledged event ids by stream, in version order. */
  acknowledged: Map<string, string[]>;
  /** Answers other than 201 that are neither "unknown outcome" nor a redirect: each one is a defect. */
  unexpected: string[];
  /** Writes retried because their outcome was unknown. */
  retries: number;
}

type Attempt = { kind: 'acknowledged' } | { kind: 'retry' } | { kind: 'unexpected'; detail: string };

async function attempt(url: string, stream: string, eventId: string, expectedVersion: number): Promise<Attempt> {
  try {
    const response = await fetch(`${url}/streams/${stream}`, {
      method: 'POST', redirect: 'manual', signal: AbortSignal.timeout(10_000),
      headers: {
        authorization: ADMIN_AUTH, 'content-type': 'application/json', 'svc-eventtype': 'tortured',
        'svc-eventid': eventId, 'svc-expectedversion': String(expectedVersion),
      },
      body: JSON.stringify({ eventId, stream, expectedVersion }),
    });
    const body = await response.text();
    if (response.status === 201) return { kind: 'acknowledged' };
    // Unknown outcome, or not the leader (any more): ask again at the leader.
    if (response.status === 503 || response.status === 307) return { kind: 'retry' };
    return { kind: 'unexpected', detail: `${stream}@${expectedVersion}: ${response.status} ${body.slice(0, 300)}` };
  } catch {
    return { kind: 'retry' };
  }
}

/** Runs `writers` writers until `stop` resolves, then lets each finish the event it is on. */
export async function runWriters(cluster: TestCluster, writers: number, stop: Promise<void>): Promise<WriterOutcome> {
  const finder = new LeaderFinder(cluster);
  const outcome: WriterOutcome = { acknowledged: new Map(), unexpected: [], retries: 0 };
  let stopped = false;
  void stop.then(() => {
    stopped = true;
  });
  await Promise.all(Array.from({ length: writers }, async (_, index) => {
    const stream = `tortured-${index}`;
    const ids: string[] = [];
    outcome.acknowledged.set(stream, ids);
    while (!stopped && outcome.unexpected.length === 0) {
      const eventId = randomUUID();
      for (;;) {
        const leader = finder.known ?? await finder.refresh();
        const result = leader ? await attempt(leader.url, stream, eventId, ids.length - 1) : { kind: 'retry' as const };
        if (result.kind === 'acknowledged') {
          ids.push(eventId);
          break;
        }
        if (result.kind === 'unexpected') {
          outcome.unexpected.push(result.detail);
          return;
        }
        outcome.retries++;
        await finder.refresh();
      }
    }
  }));
  return outcome;
}
