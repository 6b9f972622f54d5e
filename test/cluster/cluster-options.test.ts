/**
 * The cluster options: parsed once, the rules between them checked at start, and a node started
 * with --etcd-endpoints refused while it cannot take part in the election.
 */
import t from 'tap';
import { clusterOptionsOf } from '../../src/daemon/cluster/cluster-options.js';
import { daemonOptions } from '../../src/daemon/options.js';

const cluster = {
  clusterSize: 3, etcdEndpoints: 'http://10.0.0.1:2379, http://10.0.0.2:2379', advertiseHttpUrl: 'http://10.0.0.5:2113', leaderLeaseTtlMs: 4000, nodePriority: 2,
};
const options = (values: Record<string, string | number>) => daemonOptions({ db: 'db', ...values }, t.testdirName).values;

t.test('well-formed options give a frozen cluster configuration', async (t) => {
  const parsed = clusterOptionsOf(options(cluster));
  t.same(parsed?.etcdEndpoints, ['http://10.0.0.1:2379', 'http://10.0.0.2:2379']);
  t.equal(parsed?.clusterName, 'svcdb');
  t.equal(parsed?.leaderLeaseTtlMs, 4000);
  t.ok(Object.isFrozen(parsed));
  t.equal(clusterOptionsOf(options({})), undefined, 'no endpoints: no cluster');
});

t.test('bad values and combinations are refused with the option named', async (t) => {
  const refused = (values: Record<string, string | number>, code: string) =>
    t.throws(() => clusterOptionsOf(options(values)), { code }, JSON.stringify(values));
  refused({ ...cluster, clusterSize: 4 }, 'SVCDB_ERR_OPTION_INVALID');
  refused({ ...cluster, leaderLeaseTtlMs: 2500 }, 'SVCDB_ERR_OPTION_INVALID');
  refused({ ...cluster, etcdEndpoints: 'https://10.0.0.1:2379' }, 'SVCDB_ERR_OPTION_INVALID');
  refused({ ...cluster, etcdEndpoints: 'not a url' }, 'SVCDB_ERR_OPTION_INVALID');
  refused({ ...cluster, advertiseHttpUrl: 'http://user:pw@10.0.0.5:2113' }, 'SVCDB_ERR_OPTION_INVALID');
  refused({ ...cluster, clusterName: 'a/b' }, 'SVCDB_ERR_OPTION_INVALID');
  refused({ ...cluster, advertiseHttpUrl: '' }, 'SVCDB_ERR_OPTION_REQUIRES');
  refused({ ...cluster, clusterSize: 1 }, 'SVCDB_ERR_OPTION_REQUIRES');
  refused({ clusterSize: 3 }, 'SVCDB_ERR_OPTION_REQUIRES');
  refused({ ...cluster, replicaOf: 'http://10.0.0.9:2113' }, 'SVCDB_ERR_OPTION_CONFLICT');
});
