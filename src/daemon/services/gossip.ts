/**
 * What this node says about the cluster: today a cluster of one, this node as its leader, with
 * the checkpoints and epoch a joining node would compare. Updates from other nodes are checked
 * and logged, and change nothing: a single node keeps itself leader.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../common/logger.js';
import type { EngineStatus } from '../../storage/engine.js';
import type { NodeState } from './node-info.js';
import type { ReplicaStatus } from '../replication/follower.js';

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
}

export class GossipService {
  /** Identifies this run of the node; a restart is a new instance. */
  readonly instanceId = randomUUID();

  constructor(private readonly sources: GossipSources) {}

  document(): GossipDocument {
    const { ip, port } = this.sources.address() ?? { ip: '', port: 0 };
    const status = this.sources.status();
    // There is no TCP client protocol: its endpoints are reported with port 0, as disabled.
    const member: GossipMember = {
      instanceId: this.instanceId,
      timeStamp: new Date().toISOString(),
      state: memberStates[this.sources.state()],
      isAlive: true,
      internalTcpIp: ip,
      internalTcpPort: 0,
      internalSecureTcpPort: 0,
      externalTcpIp: ip,
      externalTcpPort: 0,
      externalSecureTcpPort: 0,
      httpEndPointIp: ip,
      httpEndPointPort: port,
      advertiseHostToClientAs: null,
      advertiseHttpPortToClientAs: 0,
      advertiseTcpPortToClientAs: 0,
      // A commit is durable (writer.chk) and indexed (the chaser's work) before it is readable.
      lastCommitPosition: status.readableEnd,
      writerCheckpoint: status.readableEnd,
      chaserCheckpoint: status.readableEnd,
      epochPosition: status.epochPosition,
      epochNumber: status.epochNumber,
      epochId: status.epochId,
      nodePriority: 0,
      isReadOnlyReplica: this.sources.replica !== undefined,
    };
    const replication = this.sources.replica?.();
    return { members: [member], serverIp: ip, serverPort: port, ...(replication ? { replication } : {}) };
  }

  /** Takes another node's view (already checked against the schema) and answers with this one's. */
  receive(update: GossipUpdate): GossipDocument {
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
