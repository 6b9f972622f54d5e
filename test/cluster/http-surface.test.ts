/**
 * The HTTP surface of a cluster member, against a real three-member etcd: /gossip lists every
 * member etcd has with its state, /info carries the cluster, and POST /admin/node/resign moves
 * leadership away (the leader key goes and the node no longer leads), for operators only and
 * never from another site's page.
 */
import t from 'tap';
import { clusterKeys, connectEtcd } from '../../src/daemon/cluster/etcd-connection.js';
import { ETCD_KEY_PREFIX } from '../../src/daemon/cluster/cluster-options.js';
import { Errors } from '../../src/common/errors.js';
import type { GossipDocument } from '../../src/daemon/services/gossip.js';
import type { InfoDocument } from '../../src/daemon/services/node-info.js';
import { ADMIN_AUTH } from '../helpers/auth.js';
import { threeMembers } from '../helpers/cluster-http.js';
import { startNode } from '../helpers/node.js';
import { pollUntilAsync } from '../helpers/wait.js';

async function json<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
  return await response.json() as T;
}

/** Waits until /gossip of `url` says these states of these members. */
async function gossipSays(url: string, states: Record<string, string>): Promise<GossipDocument> {
  let document!: GossipDocument;
  await pollUntilAsync(`/gossip to say ${JSON.stringify(states)}`, async () => {
    document = await json<GossipDocument>(`${url}/gossip`);
    const said = Object.fromEntries(document.members.map((member) => [member.instanceId, member.state]));
    return JSON.stringify(said) === JSON.stringify(states);
  }, { intervalMs: 20 });
  return document;
}

t.test('/gossip lists every member etcd has, in the wire format, and /info carries the cluster', async (t) => {
  const { a } = await threeMembers(t, 'surface');
  t.ok(a.node.election.isLeader, 'a leads');
  const port = Number(new URL(a.url).port);
  const gossip = await gossipSays(a.url, { a: 'Leader', b: 'Follower', c: 'Follower' });
  const [self, b] = gossip.members;
  t.match(self, {
    instanceId: 'a', state: 'Leader', isAlive: true, httpEndPointIp: '127.0.0.1', httpEndPointPort: port, isReadOnlyReplica: false, nodePriority: 0,
  });
  t.ok(self.writerCheckpoint > 0 && self.chaserCheckpoint === self.writerCheckpoint, 'this node reports its own log');
  t.match(b, { instanceId: 'b', state: 'Follower', isAlive: true, httpEndPointIp: 'b.test', httpEndPointPort: 2113, writerCheckpoint: 0, epochNumber: 0, nodePriority: 1 });
  t.equal(gossip.serverPort, port);

  const info = await json<InfoDocument>(`${a.url}/info`);
  t.equal(info.state, 'leader');
  t.match(info.cluster, {
    name: 'surface', size: 3, nodeId: 'a', term: a.node.election.term, leader: { id: 'a', httpUrl: a.url },
  });
  t.same(info.cluster?.members.map((member) => [member.id, member.state, member.self]), [['a', 'Leader', true], ['b', 'Follower', false], ['c', 'Follower', false]]);
});

t.test('POST /admin/node/resign: refused anonymously and from another site; an operator\'s moves leadership away', async (t) => {
  const { etcd, a } = await threeMembers(t, 'resign');
  const resign = (headers: Record<string, string>) => fetch(`${a.url}/admin/node/resign`, { method: 'POST', headers });

  const anonymous = await resign({});
  t.equal(anonymous.status, 401, 'anonymous is refused');
  const forged = await resign({ authorization: ADMIN_AUTH, origin: 'http://evil.example', 'content-type': 'text/plain' });
  t.equal(forged.status, 400, 'a post from another site\'s page is refused');
  t.equal((await forged.json() as { code: string }).code, Errors.httpCrossSiteRefused.code);
  t.ok(a.node.election.isLeader, 'neither request resigned');

  const term = a.node.election.term;
  const answer = await resign({ authorization: ADMIN_AUTH });
  t.equal(answer.status, 200);
  t.equal(await answer.text(), '', 'an empty body');
  t.notOk(a.node.election.isLeader, 'the node no longer leads once the answer came');
  const client = connectEtcd(etcd.endpoints, 1000);
  t.teardown(() => client.close());
  const key = await client.get(clusterKeys(ETCD_KEY_PREFIX, 'resign').leader).exec();
  const holder = key.kvs[0];
  t.ok(holder === undefined || Number(holder.create_revision) > term, 'the leader key of its term is gone');

  // b, next in line, wins (a stays out for one lease TTL) and a's surface says so.
  const gossip = await gossipSays(a.url, { a: 'Follower', b: 'Leader', c: 'Follower' });
  t.equal(gossip.members.length, 3);
  const info = await json<InfoDocument>(`${a.url}/info`);
  t.equal(info.state, 'follower');
  t.match(info.cluster, { leader: { id: 'b', httpUrl: 'http://b.test:2113' } });
  t.ok((info.cluster?.term ?? 0) > term, 'the new leader\'s term is higher');
});

t.test('POST /admin/node/priority/{n} is refused with the coded error that says to restart', async (t) => {
  const node = await startNode(t);
  const answer = await fetch(`${node.url}/admin/node/priority/5`, { method: 'POST', headers: { authorization: ADMIN_AUTH } });
  t.equal(answer.status, 400);
  t.equal((await answer.json() as { code: string }).code, Errors.clusterPriorityAtStart.code);
  const anonymous = await fetch(`${node.url}/admin/node/priority/5`, { method: 'POST' });
  t.equal(anonymous.status, 401);
});

t.test('a node outside a cluster answers a resignation with 200 and keeps leading; its /gossip and /info are unchanged', async (t) => {
  const node = await startNode(t);
  const answer = await fetch(`${node.url}/admin/node/resign`, { method: 'POST', headers: { authorization: ADMIN_AUTH } });
  t.equal(answer.status, 200);
  t.equal(await answer.text(), '');
  const info = await json<InfoDocument>(`${node.url}/info`);
  t.equal(info.state, 'leader');
  t.notOk('cluster' in info, 'no cluster in /info');
  const gossip = await json<GossipDocument>(`${node.url}/gossip`);
  t.equal(gossip.members.length, 1);
  t.equal(gossip.members[0].state, 'Leader');
});

t.test('a record that claims to lead against the leader key, or names an unknown state, is not believed', async (t) => {
  const { etcd, a } = await threeMembers(t, 'claims');
  const client = connectEtcd(etcd.endpoints, 1000);
  t.teardown(() => client.close());
  // What a deposed leader's last record, or another program, may have left under the members prefix.
  const keys = clusterKeys(ETCD_KEY_PREFIX, 'claims');
  const record = (id: string, state: string) => JSON.stringify({ id, httpUrl: `http://${id}.test:2113`, state, writerCheckpoint: 0, epoch: 0, priority: 0 });
  await client.put(keys.member('x')).value(record('x', 'Leader')).exec();
  await client.put(keys.member('y')).value(record('y', 'Master')).exec();
  await gossipSays(a.url, { a: 'Leader', b: 'Follower', c: 'Follower', x: 'Follower', y: 'Unknown' });
  t.pass('x, which the leader key does not name, follows; y\'s state is unknown');
});
