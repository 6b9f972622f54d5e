/**
 * Which node may campaign for leader. The rule (docs/cluster.md explains why it is safe):
 *
 * A node campaigns only when a majority of the cluster's size, itself included, has published its
 * record since the last leader's key went away (so every one of those positions was read after
 * the last leader stopped acknowledging), and none of them is ahead of it. "Ahead" compares the
 * newest epoch first, then the durable position, then the priority (higher first), then the id
 * (lower first), so that exactly one of any set of records is first.
 *
 * Every record a leader acknowledged is durable on a majority; any majority that published meets
 * that one in at least one node, which holds the record; the first of the publishers holds at
 * least what that node holds, because logs that end in the same newest epoch are prefixes of one
 * another, and a later epoch's log holds everything acknowledged in earlier ones.
 */
import type { Member, MemberRecord } from './member-record.js';

/** Negative when `a` comes before `b`: `a` is the better candidate. */
export function compareCandidates(a: MemberRecord, b: MemberRecord): number {
  return (b.epoch - a.epoch) || (b.writerCheckpoint - a.writerCheckpoint) || (b.priority - a.priority) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function majorityOf(clusterSize: number): number {
  return Math.floor(clusterSize / 2) + 1;
}

export type CampaignVerdict =
  | { readonly campaign: true }
  | { readonly campaign: false; readonly why: string };

/**
 * Whether `selfId` may campaign, given the members etcd has and the revision at which the leader
 * key was last seen absent (records written at or before it do not count).
 */
export function mayCampaign(selfId: string, members: readonly Member[], clusterSize: number, leaderGoneRevision: number): CampaignVerdict {
  const fresh = members.filter((member) => member.modRevision > leaderGoneRevision);
  const self = fresh.find((member) => member.record.id === selfId);
  if (!self) return { campaign: false, why: 'this node has not published its position since the leader went away' };
  const needed = majorityOf(clusterSize);
  if (fresh.length < needed) return { campaign: false, why: `${fresh.length} of the ${needed} members a majority needs have published their positions` };
  const ahead = fresh.find((member) => compareCandidates(member.record, self.record) < 0);
  if (ahead) return { campaign: false, why: `member ${ahead.record.id} is ahead (epoch ${ahead.record.epoch}, position ${ahead.record.writerCheckpoint})` };
  return { campaign: true };
}
