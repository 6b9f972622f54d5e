/**
 * The ClusterView a cluster node gives its HTTP surface, read live from its Membership (the
 * members etcd lists) and its Election (who leads, in which term). Who leads is what the leader
 * key says: a member record is published at most every publish interval, so a deposed leader's
 * record may still say Leader for a moment; the view does not repeat that claim. This node's own
 * state is its live one: right after it resigned, the key's deletion may not have come back
 * through the watch yet, and the node must not be shown leading then.
 */
import type { ClusterMemberState, ClusterMemberView, ClusterView } from './cluster-view.js';
import type { Election } from './election.js';
import type { MemberRecord } from './member-record.js';
import type { Membership } from './membership.js';

export interface NodeViewSources {
  id: string;
  clusterName: string;
  clusterSize: number;
  membership: Pick<Membership, 'members' | 'record'>;
  election: Pick<Election, 'leader' | 'isLeader' | 'resign'>;
}

const MEMBER_STATES: ReadonlySet<string> = new Set<ClusterMemberState>(['Leader', 'Follower', 'CatchingUp', 'PreLeader', 'Unknown']);

/** What a record says of its member; a state this version does not know is Unknown. */
function claimedState(record: MemberRecord): ClusterMemberState {
  return MEMBER_STATES.has(record.state) ? (record.state as ClusterMemberState) : 'Unknown';
}

/** The state a record claims, checked against the leader key: only the member it names leads. */
function stateOf(record: MemberRecord, leaderId: string | undefined): ClusterMemberState {
  if (record.id === leaderId) return 'Leader';
  const claimed = claimedState(record);
  if (claimed !== 'Leader') return claimed;
  return leaderId === undefined ? 'Unknown' : 'Follower';
}

function memberOf(record: MemberRecord, state: ClusterMemberState, self: boolean): ClusterMemberView {
  const { id, httpUrl, writerCheckpoint, epoch, priority } = record;
  return { id, httpUrl, state, writerCheckpoint, epoch, priority, self };
}

/** The view of the cluster that the HTTP surface of the node with these parts reads. */
export function nodeView(sources: NodeViewSources): ClusterView {
  const { id, clusterName, clusterSize, membership, election } = sources;
  const leader = () => {
    const named = election.leader;
    // The key still names this node for a moment after it stepped down.
    if (!named || (named.id === id && !election.isLeader)) return undefined;
    return { id: named.id, httpUrl: named.httpUrl, term: named.term };
  };
  return {
    nodeId: id,
    clusterName,
    clusterSize,
    leader,
    members: () => {
      const leaderId = leader()?.id;
      // This node's own entry is its live record, not the one it last published; it is listed
      // even while its registration is being renewed, so that /gossip always names the node that answers.
      const others = membership.members().filter(({ record }) => record.id !== id).map(({ record }) => memberOf(record, stateOf(record, leaderId), false));
      const own = membership.record();
      return [...others, memberOf(own, claimedState(own), true)].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    resign: () => election.resign(),
  };
}
