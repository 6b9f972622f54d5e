/**
 * The cluster on the dashboard, from `/gossip`: on a leader, itself and the replicas that follow
 * it with what it sent them and their lag; on a replica, its leader and itself with its own lag
 * (what it made durable, the truer figure); on a member of a cluster, every member etcd lists with
 * its state (Leader, Follower, …), then its replicas. Reloaded every few seconds, as the lag and
 * the leader change.
 */
import { useEffect } from 'preact/hooks';
import type { Api } from '../lib/api.js';
import { formatBytes, formatDuration } from '../../src/common/human-units.js';
import { ErrorBanner, useLoad } from './ui.js';

interface GossipMember {
  instanceId: string;
  state: string;
  httpEndPointIp: string;
  httpEndPointPort: number;
  writerCheckpoint: number;
}

interface Lag {
  lagBytes: number;
  lagSeconds: number;
}

interface Gossip {
  members: GossipMember[];
  replicas?: Array<Lag & { instanceId: string }>;
  replication?: Lag & { leaderUrl: string; leaderWriterCheckpoint: number; connection: string };
}

interface Row {
  key: string;
  state: string;
  address: string;
  writerCheckpoint: number;
  lag?: Lag;
}

const RELOAD_MS = 2000;

function rowsOf(gossip: Gossip): Row[] {
  const lags = new Map((gossip.replicas ?? []).map((replica) => [replica.instanceId, replica]));
  const rows: Row[] = gossip.members.map((member) => ({
    key: member.instanceId, state: member.state, address: `${member.httpEndPointIp}:${member.httpEndPointPort}`,
    writerCheckpoint: member.writerCheckpoint, lag: lags.get(member.instanceId) ?? gossip.replication,
  }));
  const replication = gossip.replication;
  if (replication) {
    rows.unshift({
      key: 'leader', state: replication.connection === 'unreachable' ? 'Leader (unreachable)' : 'Leader',
      address: replication.leaderUrl, writerCheckpoint: replication.leaderWriterCheckpoint,
    });
  }
  return rows;
}

export function Members({ api }: { api: Api }) {
  const gossip = useLoad((signal) => api.json<Gossip>('/gossip', { signal }), [api]);
  const { reload } = gossip;
  useEffect(() => {
    const timer = setInterval(reload, RELOAD_MS);
    return () => clearInterval(timer);
  }, [reload]);
  const rows = gossip.data ? rowsOf(gossip.data) : [];
  return (
    <div data-name="members">
      <h2>Members</h2>
      <ErrorBanner error={gossip.error} />
      <table>
        <thead><tr><th>State</th><th>Address</th><th>Writer checkpoint</th><th>Lag</th></tr></thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key} data-name="member">
              <td data-name="member-state">{row.state}</td>
              <td>{row.address}</td>
              <td>{row.writerCheckpoint < 0 ? '–' : row.writerCheckpoint}</td>
              <td data-name="member-lag">{row.lag ? `${formatBytes(row.lag.lagBytes)}, ${formatDuration(row.lag.lagSeconds)}` : '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
