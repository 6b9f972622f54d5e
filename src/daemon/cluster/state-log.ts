/**
 * One log line per change of the node's cluster state, never one per retry: while etcd is away
 * the node retries many times a second, and an operator needs the moment it went and the moment
 * it came back, not thousands of lines between. Two things are tracked apart: whether etcd
 * answers, and the node's role (leader, a leader that may not acknowledge, follower of whom).
 * The messages are stable, for operators to grep.
 *
 * etcd counts as unreachable once no request has succeeded for UNREACHABLE_AFTER_MS: with one
 * member down, the requests sent to it fail while the others answer, and while a member that lost
 * its peers has not yet noticed, it still answers some; neither is etcd going away.
 */
import type { Logger } from '../../common/logger.js';
import type { Election, LeaderInfo } from './election.js';
import type { Membership } from './membership.js';
import { monotonicClock } from './monotonic-clock.js';

export const STATE_MESSAGES = {
  reachable: 'cluster: etcd reachable',
  unreachable: 'cluster: etcd unreachable',
  leader: 'cluster: leader',
  fenced: 'cluster: leader lease may lapse, acknowledging nothing',
  follower: 'cluster: follower',
} as const;

const UNREACHABLE_AFTER_MS = 1000;

export class ClusterStateLog {
  private etcd: 'reachable' | 'unreachable' | undefined;
  private lastSuccessAt = Number.NEGATIVE_INFINITY;
  private role: string | undefined;

  constructor(private readonly logger: Logger) {}

  /** Logs the state changes that `membership` and `election` report. */
  attach(membership: Membership, election: Election): void {
    for (const source of [membership, election]) {
      source.on('reachable', () => this.etcdReachable());
      source.on('unreachable', (error: unknown) => this.etcdUnreachable(error));
    }
    election.on('leader', (term: number) => this.setRole(`leader:${term}`, () => this.logger.info({ term }, STATE_MESSAGES.leader)));
    election.on('unfenced', () => this.setRole(`leader:${election.term}`, () => this.logger.info({ term: election.term }, STATE_MESSAGES.leader)));
    election.on('fenced', () => this.setRole(`fenced:${election.term}`, () => this.logger.warn({ term: election.term }, STATE_MESSAGES.fenced)));
    election.on('follower', (leader: LeaderInfo | undefined) => this.setRole(`follower:${leader?.id ?? ''}:${leader?.term ?? 0}`,
      () => this.logger.info({ leader: leader?.id ?? null, leaderUrl: leader?.httpUrl ?? null, term: leader?.term ?? null }, STATE_MESSAGES.follower)));
  }

  private etcdReachable(): void {
    this.lastSuccessAt = monotonicClock();
    if (this.etcd === 'reachable') return;
    this.etcd = 'reachable';
    this.logger.info({}, STATE_MESSAGES.reachable);
  }

  private etcdUnreachable(error: unknown): void {
    if (this.etcd === 'unreachable' || monotonicClock() - this.lastSuccessAt < UNREACHABLE_AFTER_MS) return;
    this.etcd = 'unreachable';
    this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, STATE_MESSAGES.unreachable);
  }

  private setRole(role: string, log: () => void): void {
    if (this.role === role) return;
    this.role = role;
    log();
  }
}
