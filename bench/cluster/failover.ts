/**
 * Failover time: with writers appending at the leader, the leader is SIGKILLed and the time from
 * the SIGKILL to the first 201 from another member is taken, on this process's clock. Phases of
 * it: the leader key gone from etcd (its lease lapsed; etcd polled every KEY_POLL_MS from here),
 * then from the nodes' log lines (their clocks are this machine's): the new leader logging
 * `cluster: leader` (elected), its next `listening` (its log reopened as leader) and the other
 * survivor's next `replication following` (connected to the new leader, which the first quorum
 * needs). The killed node is started again and followed before the next round.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { median, report } from '../measure.js';
import { settled, type Member } from './members.js';
import { RETRY_MS, Writers } from './writers.js';

const WRITERS = 4;
const KEY_POLL_MS = 20;
/** Beyond the lease, what a failover may take before the round is given up as failed. */
const GIVE_UP_AFTER_TTL_MS = 30_000;

interface Round {
  /** SIGKILL to the first 201 from the new leader, on this process's clock. */
  totalMs: number;
  /** SIGKILL to each phase; undefined where it was not seen. */
  phasesMs: Record<Phase, number | undefined>;
  newLeader: string;
  killed: string;
}

const PHASES = { leaseLapsed: 'lease lapsed', elected: 'elected', leaderReopened: 'leader reopened', followerFollowing: 'follower connected' } as const;
type Phase = keyof typeof PHASES;

export interface FailoverSettings {
  rounds: number;
  leaseTtlMs: number;
  /** Whether etcd holds the leader key; undefined when etcd does not answer. */
  leaderKeyExists: () => Promise<boolean | undefined>;
  /** Starts a member again after it was killed (on the cores followers use). */
  restart: (member: Member) => Promise<void>;
  /** Places the members on their cores once one leads. */
  place: (leader: Member) => void;
}

/** Polls etcd until the leader key is gone (or `until` settles); when it was first seen gone. */
async function leaderKeyGone(settings: FailoverSettings, until: Promise<unknown>): Promise<number | undefined> {
  let over = false;
  void until.finally(() => {
    over = true;
  }).catch(() => undefined);
  while (!over) {
    if (await settings.leaderKeyExists() === false) return performance.now();
    await sleep(KEY_POLL_MS);
  }
  return undefined;
}

/** The phases the nodes logged, as milliseconds after `killedAtWall`. */
function loggedPhases(leader: Member, follower: Member, killedAtWall: number): Pick<Round['phasesMs'], 'elected' | 'leaderReopened' | 'followerFollowing'> {
  const since = (time: number | undefined) => (time === undefined ? undefined : time - killedAtWall);
  const elected = leader.firstEvent('cluster: leader', killedAtWall)?.time;
  if (elected === undefined) return { elected: undefined, leaderReopened: undefined, followerFollowing: undefined };
  return {
    elected: since(elected),
    leaderReopened: since(leader.firstEvent('listening', elected)?.time),
    followerFollowing: since(follower.firstEvent('replication following', elected)?.time),
  };
}

async function round(members: readonly Member[], writers: Writers, settings: FailoverSettings): Promise<Round> {
  const leader = await settled(members);
  settings.place(leader);
  const timeoutMs = settings.leaseTtlMs + GIVE_UP_AFTER_TTL_MS;
  // Writes reach this leader before it is killed, so the round starts under load.
  await writers.next((acknowledgement) => acknowledgement.member === leader, timeoutMs);
  // Waited for from before the kill: until then only the leader acknowledges.
  const firstElsewhere = writers.next((acknowledgement) => acknowledgement.member !== leader, timeoutMs);
  const killedAtWall = Date.now();
  const killedAt = performance.now();
  await leader.stop('SIGKILL');
  const keyGoneAt = leaderKeyGone(settings, firstElsewhere);
  const first = await firstElsewhere;
  const keyGone = await keyGoneAt;
  const follower = members.find((member) => member !== leader && member !== first.member)!;
  const result: Round = {
    totalMs: first.at - killedAt,
    phasesMs: { leaseLapsed: keyGone === undefined ? undefined : keyGone - killedAt, ...loggedPhases(first.member, follower, killedAtWall) },
    newLeader: first.member.name,
    killed: leader.name,
  };
  await settings.restart(leader);
  const next = await settled(members);
  settings.place(next);
  return result;
}

const shown = (ms: number | undefined) => (ms === undefined ? 'not seen' : `${(ms / 1000).toFixed(2)} s`);

function phasesNote(read: (phase: Phase) => string): string {
  return (Object.keys(PHASES) as Phase[]).map((phase) => `${PHASES[phase]} ${read(phase)}`).join(', ');
}

export async function measureFailover(members: readonly Member[], settings: FailoverSettings): Promise<void> {
  const writers = new Writers(members, WRITERS);
  const rounds: Round[] = [];
  try {
    for (let number = 1; number <= settings.rounds; number++) {
      const result = await round(members, writers, settings);
      rounds.push(result);
      report(`failover, round ${number}: SIGKILL to first 201`, result.totalMs / 1000, 's',
        `${result.killed} killed, ${result.newLeader} took over; after the SIGKILL: ${phasesNote((phase) => shown(result.phasesMs[phase]))}`);
    }
  } finally {
    await writers.stop();
  }
  const totals = rounds.map((result) => result.totalMs);
  const targetMs = settings.leaseTtlMs + 2000;
  const middle = median(totals);
  const phaseMedian = (phase: Phase) => {
    const values = rounds.map((result) => result.phasesMs[phase]).filter((value): value is number => value !== undefined);
    return values.length === 0 ? 'not seen' : shown(median(values));
  };
  report('failover, median SIGKILL to first 201', middle / 1000, 's',
    `${rounds.length} rounds (${totals.map((ms) => (ms / 1000).toFixed(2)).join(' / ')} s); lease TTL ${settings.leaseTtlMs / 1000} s, `
    + `target < ${targetMs / 1000} s: ${middle < targetMs ? 'met' : 'missed'}; medians: ${phasesNote(phaseMedian)}; `
    + `${WRITERS} writers, ${writers.acknowledged} appends acknowledged, ${writers.retries} sent again (every ${RETRY_MS} ms)`);
}
