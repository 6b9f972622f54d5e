/**
 * What this node says about the cluster: this node (or, in a cluster, every member etcd lists),
 * with the checkpoints and epoch a joining node would compare, and the read-only replicas that
 * follow it now. Updates from other nodes are checked and logged, and change nothing: a node on
 * its own keeps itself leader, and a cluster's members come from etcd.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../common/logger.js';
import type { EngineStatus } from '../../storage/engine.js';
import type { NodeState } from './node-info.js';
import type { ReplicaStatus } from '../replication/follower.js';
import type { FollowingReplicaView } from '../replication/replication-source.js';
import type { ClusterMemberView, ClusterView } from '../cluster/cluster-view.js';

export interface GossipMember {
  instanceId: string;
  timeStamp: string;
  state: string;
  isAlive: boolean;
  internalTcpIp: string;
  internalTcpPort: number;
  internalSecureTcpPort: number;
  externalTcpIp: string;
  externalTcpPort: number;
  externalSecureTcpPort: number;
  httpEndPointIp: string;
  httpEndPointPort: number;
  advertiseHostToClientAs: string | null;
  advertiseHttpPortToClientAs: number;
  advertiseTcpPortToClientAs: number;
  lastCommitPosition: number;
  writerCheckpoint: number;
  chaserCheckpoint: number;
  epochPosition: number;
  epochNumber: number;
  epochId: string;
  nodePriority: number;
  isReadOnlyReplica: boolean;
}

export interface GossipDocument {
  members: GossipMember[];
  serverIp: string;
  serverPort: number;
  /** On a read-only replica: its leader, its state towards it and its lag. */
  replication?: ReplicaStatus;
  /** On a node that replicas follow: each one's address, position as sent and lag (also in `members`). */
  replicas?: FollowingReplicaView[];
}

/** A member as another node sends it: the fields this node reads; the rest pass unread. */
export interface GossipUpdateMember {
  instanceId: string;
  state: string;
  isAlive: boolean;
  httpEndPointIp: string;
  httpEndPointPort: number;
}

export interface GossipUpdate {
  members: GossipUpdateMember[];
  serverIp: string;
  serverPort: number;
}

/** Member states as gossip spells them (PascalCase), by the node's lower-case state. */
const memberStates: Record<NodeState, string> = {
  initializing: 'Initializing',
  leader: 'Leader',
  follower: 'Follower',
  preleader: 'PreLeader',
  unknown: 'Unknown',
  readonlyreplica: 'ReadOnlyReplica',
  catchingup: 'CatchingUp',
  shuttingdown: 'ShuttingDown',
  shutdown: 'Shutdown',
};

export interface GossipSources {
  status: () => EngineStatus;
  state: () => NodeState;
  /** The bound HTTP address; undefined before the node listens. */
  address: () => { ip: string; port: number } | undefined;
  logger: Logger;
  /** A read-only replica's view of its leader. */
  replica?: () => ReplicaStatus;
  /** The replicas that follow this node now. */
  following?: () => FollowingReplicaView[];
  /** The cluster this node is a member of; none for a node on its own. */
  cluster?: ClusterView;
}

interface MemberFacts {
  instanceId: string;
  timeStamp: string;
  state: string;
  ip: string;
  port: number;
  position: number;
  isReadOnlyReplica: boolean;
  nodePriority?: number;
}

type EpochFacts = Pick<EngineStatus, 'epochPosition' | 'epochNumber' | 'epochId'>;

/** A member in the wire shape; the epoch is this node's (a replica that follows it is in the same one). */
function memberOf(facts: MemberFacts, epoch: EpochFacts): GossipMember {
  // There is no TCP client protocol: its endpoints are reported with port 0, as disabled.
  return {
    instanceId: facts.instanceId,
    timeStamp: facts.timeStamp,
    state: facts.state,
    isAlive: true,
    internalTcpIp: facts.ip,
    internalTcpPort: 0,
    internalSecureTcpPort: 0,
    externalTcpIp: facts.ip,
    externalTcpPort: 0,
    externalSecureTcpPort: 0,
    httpEndPointIp: facts.ip,
    httpEndPointPort: facts.port,
    advertiseHostToClientAs: null,
    advertiseHttpPortToClientAs: 0,
    advertiseTcpPortToClientAs: 0,
    lastCommitPosition: facts.position,
    writerCheckpoint: facts.position,
    chaserCheckpoint: facts.position,
    epochPosition: epoch.epochPosition,
    epochNumber: epoch.epochNumber,
    epochId: epoch.epochId,
    nodePriority: facts.nodePriority ?? 0,
    isReadOnlyReplica: facts.isReadOnlyReplica,
  };
}

/** The host (IPv6 without its brackets) and port of a member's advertised URL. */
function endpointOf(httpUrl: string): { ip: string; port: number } {
  try {
    const url = new URL(httpUrl);
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    return { ip: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
  } catch {
    return { ip: '', port: 0 };
  }
}

/**
 * A cluster member as etcd lists it. This node reports its own log as the other members do; of
 * another member only its published end of log and epoch number are known, so its epoch's
 * position and id are reported as unknown (-1 and empty), as the engine reports a log without one.
 */
function clusterMemberOf(member: ClusterMemberView, timeStamp: string, own: { status: EngineStatus; position: number }): GossipMember {
  const epoch: EpochFacts = member.self ? own.status : { epochPosition: -1, epochNumber: member.epoch, epochId: '' };
  return memberOf({
    instanceId: member.id, timeStamp, state: member.state, ...endpointOf(member.httpUrl),
    position: member.self ? own.position : member.writerCheckpoint, isReadOnlyReplica: false, nodePriority: member.priority,
  }, epoch);
}

export class GossipService {
  /** Identifies this run of the node; a restart is a new instance. */
  readonly instanceId = randomUUID();

  constructor(private readonly sources: GossipSources) {}

  document(): GossipDocument {
    const { ip, port } = this.sources.address() ?? { ip: '', port: 0 };
    const status = this.sources.status();
    const timeStamp = new Date().toISOString();
    const cluster = this.sources.cluster;
    // A commit is durable (writer.chk) and indexed (the chaser's work) before it is readable.
    const nodes = cluster
      ? cluster.members().map((member) => clusterMemberOf(member, timeStamp, { status, position: status.readableEnd }))
      : [memberOf({
        instanceId: this.instanceId, timeStamp, state: memberStates[this.sources.state()], ip, port,
        position: status.readableEnd, isReadOnlyReplica: this.sources.replica !== undefined,
      }, status)];
    const replicas = this.sources.following?.() ?? [];
    // A replica's checkpoints are what this node sent it: it does not report what it made durable.
    const followers = replicas.map((replica) => memberOf({
      instanceId: replica.instanceId, timeStamp, state: replica.state, ip: replica.remoteIp, port: replica.remotePort,
      position: replica.sentPosition, isReadOnlyReplica: true,
    }, status));
    const replication = this.sources.replica?.();
    return {
      members: [...nodes, ...followers], serverIp: ip, serverPort: port,
      ...(replication ? { replication } : {}), ...(replicas.length > 0 ? { replicas } : {}),
    };
  }

  /** Takes another node's view (already checked against the schema) and answers with this one's. */
  receive(update: GossipUpdate): GossipDocument {
    if (this.sources.cluster) {
      // A cluster's members and its leader come from etcd; a node's word changes neither.
      this.sources.logger.info({ from: `${update.serverIp}:${update.serverPort}` }, 'gossip from another node ignored: the cluster\'s members come from etcd');
      return this.document();
    }
    const others = update.members.filter((member) => member.instanceId.toLowerCase() !== this.instanceId);
    const otherLeaders = others.filter((member) => member.isAlive && member.state === 'Leader');
    if (otherLeaders.length > 0) {
      this.sources.logger.warn(
        { from: `${update.serverIp}:${update.serverPort}`, leaders: otherLeaders.map((member) => member.instanceId) },
        'gossip names another leader; this node runs alone and stays leader',
      );
    } else if (others.length > 0) {
      this.sources.logger.info({ from: `${update.serverIp}:${update.serverPort}`, members: others.length }, 'gossip from another node ignored: single-node cluster');
    }
    return this.document();
  }
}
