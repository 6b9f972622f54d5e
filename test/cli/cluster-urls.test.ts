// `--url` with the nodes of a cluster, as an operator runs the commands: child processes of the
// built CLI against real nodes in a real etcd cluster. A command that writes goes to the node that
// leads, past a URL where nothing listens and a follower, and says which node it used; when none
// leads, the error names every URL tried; a command that acts on one node refuses several URLs.
import t from 'tap';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { Errors } from '../../src/common/errors.js';
import { runCli } from '../helpers/cli.js';
import { ADMIN_AUTH } from '../helpers/auth.js';
import { clusterNode, settledLeader } from '../helpers/cluster.js';
import { startClusterHttpNode } from '../helpers/cluster-http.js';
import { startEtcdCluster } from '../helpers/etcd.js';
import { freePort } from '../helpers/replication.js';

const streamStatus = async (url: string, stream: string) => (await fetch(`${url}/streams/${stream}`, { headers: { authorization: ADMIN_AUTH, accept: 'application/json' } })).status;

t.test('several URLs: the command finds the live leader', async (t) => {
  const etcd = await startEtcdCluster(t);
  const a = await startClusterHttpNode(t, { endpoints: etcd.endpoints, id: 'a', clusterName: 'cli' });
  const b = await startClusterHttpNode(t, { endpoints: etcd.endpoints, id: 'b', clusterName: 'cli' });
  const c = clusterNode(t, { endpoints: etcd.endpoints, id: 'c', clusterName: 'cli' });
  await c.node.start();
  await settledLeader([{ node: a.node, log: [], position: c.position }, { node: b.node, log: [], position: c.position }, c]);
  t.ok(a.node.election.isLeader, 'a leads: all members are equal and it has the lowest id');
  const dead = `http://127.0.0.1:${await freePort()}`;

  const listed = await runCli(['stream', 'append', 'listed', '--type', 'T', '--data', '{}', '--url', `${dead},${b.url},${a.url}`]);
  t.equal(listed.code, ExitCode.success, listed.stderr);
  t.match(listed.stderr, `using the leader at ${a.url}`);
  t.equal(await streamStatus(a.url, 'listed'), 200, 'the event is on the leader');
  t.equal(await streamStatus(b.url, 'listed'), 404, 'and was not written to the follower');

  const named = await runCli(['stream', 'append', 'named', '--type', 'T', '--data', '{}', '--url', `${dead},${b.url}`]);
  t.equal(named.code, ExitCode.success, named.stderr);
  t.match(named.stderr, `using the leader at ${a.url} (named by ${b.url})`, 'the follower named the leader that was not listed');
  t.equal(await streamStatus(a.url, 'named'), 200);

  const status = await runCli(['status', '--url', `${a.url},${b.url}`, '--json']);
  t.equal(status.code, ExitCode.usage, 'status acts on one node');
  t.match(JSON.parse(status.stdout), { error: { code: Errors.optionInvalid.code } });
  const scavenge = await runCli(['scavenge', 'status', '--url', `${a.url},${b.url}`]);
  t.equal(scavenge.code, ExitCode.usage, 'a scavenge acts on one node');
  t.match(scavenge.stderr, 'give that node\'s URL alone');
});

t.test('several URLs, none answering: the error names every URL tried', async (t) => {
  const dead = [`http://127.0.0.1:${await freePort()}`, `http://127.0.0.1:${await freePort()}`];
  const exit = await runCli(['stream', 'read', 'x', '--url', dead.join(','), '--json']);
  t.equal(exit.code, ExitCode.unreachable);
  const { error } = JSON.parse(exit.stdout) as { error: { code: string; message: string } };
  t.equal(error.code, Errors.clientNoLeader.code);
  for (const url of dead) t.match(error.message, `${url} failed (${Errors.clientUnreachable.code})`);
});

t.test('a --url list that holds something other than URLs is refused before any request', async (t) => {
  const exit = await runCli(['stream', 'read', 'x', '--url', 'http://127.0.0.1:1,ftp://x', '--json']);
  t.equal(exit.code, ExitCode.usage);
  t.match(JSON.parse(exit.stdout), { error: { code: Errors.optionInvalid.code, message: /ftp:\/\/x/ } });
});
