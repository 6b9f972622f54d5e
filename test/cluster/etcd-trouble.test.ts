/**
 * etcd losing quorum under a leader: the leader stops acknowledging when its lease could lapse,
 * not later, logs the change once however often it retries, and leads again when etcd is back.
 */
import t from 'tap';
import { STATE_MESSAGES } from '../../src/daemon/cluster/state-log.js';
import { clusterNode, nextEvent, settledLeader, TEST_LEASE_TTL_MS } from '../helpers/cluster.js';
import { startEtcdCluster } from '../helpers/etcd.js';
import { pollUntil } from '../helpers/wait.js';

t.test('with etcd short of quorum the leader stops acknowledging within its lease and recovers with etcd', async (t) => {
  const etcd = await startEtcdCluster(t);
  const nodes = ['a', 'b', 'c'].map((id) => clusterNode(t, { endpoints: etcd.endpoints, id, clusterName: 'quorum' }));
  await Promise.all(nodes.map(({ node }) => node.start()));
  const leader = await settledLeader(nodes);
  const { election } = leader.node;
  const term = election.term;
  let failedRequests = 0;
  election.on('unreachable', () => failedRequests++);

  await Promise.all([etcd.members[1].stop(), etcd.members[2].stop()]);
  // While the two members were stopping, etcd may have had a quorum for a moment more and renewed
  // the lease; from here it has none, so the leader is fenced now or will be at its deadline.
  if (election.mayAcknowledge()) await nextEvent(election, 'fenced', 'the leader to stop acknowledging');
  t.notOk(election.mayAcknowledge(), 'no acknowledgement once the lease may lapse');
  t.ok(election.acknowledgeDeadline() <= election.lastRenewalSentAt() + TEST_LEASE_TTL_MS - 500,
    'the deadline it kept is a drift margin before the earliest moment etcd could let the lease lapse');
  await pollUntil('the "etcd unreachable" line', () => leader.log.some((entry) => entry.message === STATE_MESSAGES.unreachable), { intervalMs: 20 });
  // A few more failed requests: each is a retry, none is a new log line.
  const failedAtLine = failedRequests;
  await nextEvent(election, 'unreachable', 'more failed requests', () => failedRequests >= failedAtLine + 3);

  for (const member of etcd.members.slice(1)) member.start();
  await etcd.waitHealthy();
  const back = await settledLeader(nodes, 'a leader that may acknowledge again');
  t.ok(back.node.election.term >= term, 'the same term, or a later one if the lease went while etcd was away');

  const messages = leader.log.map((entry) => entry.message);
  // etcd may come and go more than once while members stop and start (a member answers for a
  // moment before it notices it lost its peers), so the count of lines is not fixed; that each
  // line is a change, and that retries add none, is.
  const unreachableLines = messages.filter((message) => message === STATE_MESSAGES.unreachable).length;
  t.ok(unreachableLines >= 1 && unreachableLines < failedRequests, `${unreachableLines} "etcd unreachable" lines for ${failedRequests} failed requests`);
  t.ok(messages.includes(STATE_MESSAGES.fenced), 'a line when it stopped acknowledging');
  t.ok(messages.lastIndexOf(STATE_MESSAGES.reachable) > messages.indexOf(STATE_MESSAGES.unreachable), 'a line when etcd answered again');
  // A state is the line with its fields: following no leader, then the one elected, are two.
  const states = leader.log.map(({ message, fields }) => {
    const { leader: following, term } = fields as { leader?: unknown; term?: unknown };
    return `${message}${following === undefined ? '' : ` leader=${JSON.stringify(following)}`}${term === undefined ? '' : ` term=${JSON.stringify(term)}`}`;
  });
  for (let index = 1; index < states.length; index++) {
    t.not(states[index], states[index - 1], `line ${index} (${states[index]}) is a change`);
  }
});
