/**
 * The light load a failover is measured under: a few writers, each appending the peers' event to
 * a stream of its own at a steady pace, at whichever member leads. An append whose answer is not
 * a 201 (a refused or broken connection, a 503, a 307 from a follower) is sent again with the
 * same event id, after RETRY_MS, at the leader as found then; so the first 201 after a leader
 * dies arrives at most about RETRY_MS after the new leader could give it.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { EVENT_TYPE, PAYLOAD } from '../peers/workloads.js';
import type { Member } from './members.js';

export const RETRY_MS = 25;
const PACE_MS = 20;
const REQUEST_TIMEOUT_MS = 10_000;

/** A 201 and when it arrived (performance.now()). */
export interface Acknowledgement {
  member: Member;
  at: number;
}

/** The leader as last found; one search at a time however many writers ask. */
class LeaderFinder {
  current: Member | undefined;
  private finding: Promise<Member | undefined> | undefined;

  constructor(private readonly members: readonly Member[]) {}

  find(): Promise<Member | undefined> {
    this.finding ??= (async () => {
      try {
        const running = this.members.filter((member) => member.running);
        const states = await Promise.all(running.map((member) => member.state()));
        this.current = running[states.indexOf('leader')];
        return this.current;
      } finally {
        this.finding = undefined;
      }
    })();
    return this.finding;
  }
}

async function append(url: string, stream: string, eventId: string): Promise<number | undefined> {
  try {
    const response = await fetch(`${url}/streams/${stream}`, {
      method: 'POST', redirect: 'manual', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      headers: { 'content-type': 'application/json', 'svc-eventtype': EVENT_TYPE, 'svc-eventid': eventId },
      body: PAYLOAD,
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return undefined; // Refused, reset or timed out: the outcome is unknown, so the append is sent again.
  }
}

interface Waiter {
  wanted: (acknowledgement: Acknowledgement) => boolean;
  resolve: (acknowledgement: Acknowledgement) => void;
}

export class Writers {
  private readonly finder: LeaderFinder;
  private readonly waiters = new Set<Waiter>();
  private stopped = false;
  private readonly done: Promise<void>;
  /** Appends sent again because their answer was not a 201. */
  retries = 0;
  acknowledged = 0;

  constructor(members: readonly Member[], readonly count: number) {
    this.finder = new LeaderFinder(members);
    this.done = Promise.all(Array.from({ length: count }, (_, index) => this.write(`failover-${process.pid}-${index}`))).then(() => undefined);
  }

  /** The next 201 that `wanted` accepts, or an error after `timeoutMs`. */
  next(wanted: (acknowledgement: Acknowledgement) => boolean, timeoutMs: number): Promise<Acknowledgement> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        wanted,
        resolve: (acknowledgement) => {
          clearTimeout(timer);
          resolve(acknowledgement);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`no acknowledged append within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }

  private acknowledge(acknowledgement: Acknowledgement): void {
    this.acknowledged++;
    for (const waiter of this.waiters) {
      if (!waiter.wanted(acknowledgement)) continue;
      this.waiters.delete(waiter);
      waiter.resolve(acknowledgement);
    }
  }

  private async write(stream: string): Promise<void> {
    while (!this.stopped) {
      const eventId = randomUUID();
      while (!this.stopped) {
        const leader = this.finder.current ?? await this.finder.find();
        const status = leader ? await append(leader.url, stream, eventId) : undefined;
        if (leader && status === 201) {
          this.acknowledge({ member: leader, at: performance.now() });
          break;
        }
        this.retries++;
        if (this.finder.current === leader) this.finder.current = undefined;
        await sleep(RETRY_MS);
      }
      await sleep(PACE_MS);
    }
  }
}
