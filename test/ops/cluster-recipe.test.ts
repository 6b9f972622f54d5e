// docs/cluster-recipe.md stays true: each node's svcdb.yaml, as the recipe writes it, loads and
// passes the cluster's checks; the TLS lines name options the node has; the /etc/default/etcd
// settings, written out for the three machines as the recipe says, form a real three-member etcd;
// and the unit with its etcd drop-in is one systemd accepts.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { configKey } from '../../src/common/options/definition.js';
import { loadOptions } from '../../src/common/options/load.js';
import { optionKeys } from '../../src/common/options/schema.js';
import { clusterOptionsOf } from '../../src/daemon/cluster/cluster-options.js';
import { cliPath, repositoryRoot } from '../helpers/cli.js';
import { ETCD_BINARY } from '../helpers/etcd.js';
import { freePort } from '../helpers/replication.js';
import { pollUntilAsync, withDeadline } from '../helpers/wait.js';

const recipe = readFileSync(join(repositoryRoot, 'docs', 'cluster-recipe.md'), 'utf8');

/** The fenced blocks of the recipe whose first line matches `first`. */
function blocksStartingWith(first: RegExp): string[] {
  return [...recipe.matchAll(/```(?:sh|yaml)\n([\s\S]*?)```/g)].map((match) => match[1]).filter((block) => first.test(block));
}

/** `KEY=value` (or `Key: value`) lines of a block, in order. */
function settings(block: string, separator: RegExp): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of block.split('\n')) {
    const match = new RegExp(`^([A-Za-z_]+)${separator.source}(.*)$`).exec(line);
    if (match) found.set(match[1], match[2].trim());
  }
  return found;
}

const [nodeYaml] = blocksStartingWith(/^Db: /);
const [tlsYaml] = blocksStartingWith(/^CertFile: /);
const [etcdDefaults] = blocksStartingWith(/^ETCD_NAME=node1\n/);

t.test('each node\'s svcdb.yaml loads and is a valid member of a three-node cluster', async (t) => {
  t.ok(nodeYaml, 'the recipe has node1\'s svcdb.yaml');
  const directory = t.testdir({ 'admin-password': 'admin-secret\n', 'peer-password': 'peer-secret\n' });
  for (const node of [1, 2, 3]) {
    // node2 and node3 differ in AdvertiseHttpUrl alone, as the recipe says.
    const text = nodeYaml.replace('AdvertiseHttpUrl: http://10.0.0.1:2113', `AdvertiseHttpUrl: http://10.0.0.${node}:2113`)
      .replaceAll('/etc/svcdb/', `${directory}/`);
    const file = join(directory, `node${node}.yaml`);
    writeFileSync(file, text);
    const { values } = loadOptions({ flags: { config: file }, env: {}, cwd: '/' });
    t.equal(values.replicaPassword, 'peer-secret', `node${node}: the nodes log in with the peer password`);
    t.equal(values.defaultOpsPassword, values.replicaPassword, `node${node}: ops is created with the password the nodes log in with`);
    const cluster = clusterOptionsOf(values);
    t.same(cluster && {
      size: cluster.clusterSize, endpoints: cluster.etcdEndpoints, name: cluster.clusterName, advertised: cluster.advertiseHttpUrl,
    }, {
      size: 3, endpoints: ['http://10.0.0.1:2379', 'http://10.0.0.2:2379', 'http://10.0.0.3:2379'], name: 'prod', advertised: `http://10.0.0.${node}:2113`,
    }, `node${node}: the cluster options`);
  }
});

t.test('the TLS lines name options of the node', async (t) => {
  const keys = new Set(optionKeys.map(configKey));
  const named = [...settings(tlsYaml, /: /).keys()];
  t.same(named, ['CertFile', 'CertPrivateKeyFile', 'TrustedRootCertificatesPath', 'AdvertiseHttpUrl']);
  for (const key of named) t.ok(keys.has(key), `${key} is an option`);
});

/** node1's settings rewritten for `node` on loopback: its name, its ports, its data directory. */
function memberEnvironment(node: number, ports: Array<{ client: number; peer: number }>, dataDir: string): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [key, value] of settings(etcdDefaults, /=/)) {
    // The recipe: "the same, with their own ETCD_NAME and their own address in the four …_URLS lines".
    let own = key === 'ETCD_NAME' ? `node${node}` : value;
    if (key.endsWith('_URLS')) own = own.replaceAll('10.0.0.1:', `10.0.0.${node}:`);
    // The machines' addresses become loopback ports; the member's own loopback listener is left out
    // (three members share this machine's 127.0.0.1).
    own = own.replace(/http:\/\/10\.0\.0\.(\d):(2379|2380)/g, (_, machine: string, port: string) =>
      `http://127.0.0.1:${port === '2379' ? ports[Number(machine) - 1].client : ports[Number(machine) - 1].peer}`);
    own = own.split(',').filter((url) => url !== 'http://127.0.0.1:2379').join(',');
    environment[key] = key === 'ETCD_DATA_DIR' ? dataDir : own;
  }
  return environment;
}

t.test('the /etc/default/etcd settings of the three machines form one etcd cluster', async (t) => {
  t.ok(etcdDefaults, 'the recipe has node1\'s /etc/default/etcd');
  const root = t.testdir();
  // Six different ports: freePort releases each one before the next is asked for.
  const distinct = new Set<number>();
  while (distinct.size < 6) distinct.add(await freePort());
  const [a, b, c, d, e, f] = [...distinct];
  const ports = [{ client: a, peer: b }, { client: c, peer: d }, { client: e, peer: f }];
  const members = [1, 2, 3].map((node) => {
    const dataDir = join(root, `node${node}`);
    mkdirSync(dataDir, { mode: 0o700 });
    const child = spawn(ETCD_BINARY, [], { env: { PATH: process.env.PATH, ...memberEnvironment(node, ports, dataDir) }, stdio: ['ignore', 'ignore', 'pipe'] });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => { output = (output + chunk.toString()).slice(-4000); });
    return { child, output: () => output, clientUrl: `http://127.0.0.1:${ports[node - 1].client}` };
  });
  t.teardown(() => withDeadline(Promise.all(members.map(async ({ child }) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await once(child, 'exit');
  })), 'the etcd members to stop'));
  const healthy = async (url: string) => {
    try {
      const body = await (await fetch(`${url}/health`)).json() as { health?: string };
      return body.health === 'true';
    } catch {
      return false;
    }
  };
  const allHealthy = async () => {
    // A member that refused its settings exits at once: say so instead of waiting out the deadline.
    if (members.some(({ child }) => child.exitCode !== null)) throw new Error('an etcd member exited');
    return (await Promise.all(members.map((member) => healthy(member.clientUrl)))).every(Boolean);
  };
  await pollUntilAsync('the three members to report themselves healthy', allHealthy, { intervalMs: 100 })
    .catch((error: unknown) => { throw new Error(`${String(error)}\n${members.map((member) => member.output()).join('\n')}`); });
  const list = await (await fetch(`${members[0].clientUrl}/v3/cluster/member/list`, { method: 'POST', body: '{}' })).json() as { members: Array<{ name: string }> };
  t.same(list.members.map((member) => member.name).sort(), ['node1', 'node2', 'node3'], 'one cluster of the three named members');
});

t.test('systemd accepts the unit with the etcd drop-in, which orders the node after etcd', async (t) => {
  const directory = t.testdir();
  const unit = readFileSync(join(repositoryRoot, 'packaging', 'svcdb.service'), 'utf8');
  const dropIn = readFileSync(join(repositoryRoot, 'packaging', 'svcdb.service.d', 'etcd.conf'), 'utf8');
  t.match(dropIn, /^Wants=etcd\.service$/m);
  t.match(dropIn, /^After=etcd\.service$/m);
  t.match(recipe, 'packaging/svcdb.service.d/etcd.conf /etc/systemd/system/svcdb.service.d/etcd.conf', 'the recipe installs it');
  // verify needs the command to exist and man to know the Documentation= page: point both here.
  writeFileSync(join(directory, 'svcdb.service'), unit.replace(/^ExecStart=\S+/m, `ExecStart=${cliPath}`).replace(/^Documentation=.*\n/m, ''));
  mkdirSync(join(directory, 'svcdb.service.d'));
  writeFileSync(join(directory, 'svcdb.service.d', 'etcd.conf'), dropIn);
  // verify exits 0 on an unknown directive and says so on stderr: read both streams.
  const verify = spawnSync('systemd-analyze', ['verify', join(directory, 'svcdb.service')], { encoding: 'utf8' });
  if (verify.error) throw verify.error;
  const output = `${verify.stdout}${verify.stderr}`;
  t.notMatch(output, /Unknown|Invalid|Failed to parse|ignoring/i, output);
});
