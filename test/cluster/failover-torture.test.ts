// Failover under load: 32 writers with expected versions while the leader of a three-node
// cluster is SIGKILLed again and again at random moments (SVC_TEST_FAILOVER_KILLS rounds, 20 by
// default), and, in a second run, frozen with SIGSTOP past its lease and then let go. After each
// round the killed member is started again and follows; at the end every member serves exactly
// the acknowledged events of every stream, in order (nothing lost, nothing invented), and every
// member's log is byte for byte the leader's.
import t, { type Test } from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLUSTER_LEASE_TTL_MS, TestCluster, type ClusterMember } from '../helpers/cluster-processes.js';
import { runWriters, type WriterOutcome } from '../helpers/cluster-writers.js';
import { startEtcdCluster } from '../helpers/etcd.js';
import { compareLogs, eventIds, waitForReplicas } from '../helpers/replication.js';
import { randomInt } from 'node:crypto';

const KILLS = Number(process.env.SVC_TEST_FAILOVER_KILLS ?? 20);
// Rounds take seconds each (a lease TTL, an election, a restart): more than tap's default allows.
t.setTimeout(15 * 60_000);
const FREEZES = Number(process.env.SVC_TEST_FAILOVER_FREEZES ?? 3);
const WRITERS = 32;

async function checkConverged(t: Test, cluster: TestCluster, outcome: WriterOutcome): Promise<void> {
  t.same(outcome.unexpected, [], 'no write got an answer other than 201, 503 or 307');
  const acknowledged = [...outcome.acknowledged.values()].reduce((sum, ids) => sum + ids.length, 0);
  t.ok(acknowledged > 0, `writes were acknowledged (${acknowledged}, ${outcome.retries} retried)`);
  const leader = await cluster.settled();
  const followers = cluster.members.filter((member) => member !== leader);
  const end = await waitForReplicas(leader.directories, followers.map((member) => ({ directories: member.directories, url: member.url })));
  for (const member of cluster.members) {
    const wrong: string[] = [];
    for (const [stream, ids] of outcome.acknowledged) {
      const served = await eventIds(member.url, stream);
      if (served.length !== ids.length || served.some((id, index) => id !== ids[index])) wrong.push(`${stream}: ${served.length} served, ${ids.length} acknowledged`);
    }
    t.same(wrong, [], `${member.name} serves exactly the acknowledged events of every stream, in order`);
  }
  for (const member of followers) {
    t.same(compareLogs(leader.directories.db, member.directories.db, end).different, [], `${member.name}'s log is the leader's, byte for byte`);
  }
}

/**
 * A cluster under 32 writers while `rounds` times, at a random moment, `disrupt` does something to
 * its leader; then the writers stop and every member must hold exactly what was acknowledged.
 */
async function tortured(t: Test, rounds: number, disrupt: (leader: ClusterMember, cluster: TestCluster, round: number) => Promise<void>): Promise<void> {
  const etcd = await startEtcdCluster(t);
  const cluster = await TestCluster.start(t, etcd);
  let finish!: () => void;
  const writing = runWriters(cluster, WRITERS, new Promise<void>((resolve) => {
    finish = resolve;
  }));
  for (let round = 0; round < rounds; round++) {
    const leader = await cluster.settled();
    await sleep(randomInt(200, 1500));
    await disrupt(leader, cluster, round);
  }
  finish();
  await checkConverged(t, cluster, await writing);
}

t.test(`the leader SIGKILLed ${KILLS} times under 32 writers`, (t) => tortured(t, KILLS, async (leader, cluster, round) => {
  await leader.kill();
  await cluster.settled(`round ${round}: a new leader among the two members left`);
  await leader.start(t);
}));

t.test(`the leader frozen past its lease ${FREEZES} times under 32 writers`, (t) => tortured(t, FREEZES, async (leader, cluster, round) => {
  leader.freeze();
  await cluster.settled(`round ${round}: a new leader while the old one is frozen`);
  await sleep(CLUSTER_LEASE_TTL_MS);
  // Let go, the old leader finds its lease gone: it must have acknowledged nothing since, and follows.
  leader.thaw();
}));
