/**
 * A projection writes with the rights of the user it runs as, never with the node's: an $ops
 * user cannot make itself an admin, or lock the admin out, through a projection that emits into
 * `$settings` or `$user-admin` (regression: projections created without enableRunAs wrote with
 * the node's own rights).
 */
import t from 'tap';
import { adminFetch, OPS_AUTH } from '../helpers/auth.js';
import { newEvents } from '../helpers/engine.js';
import { readStream, startProjectionsNode, waitStatus } from '../helpers/projections.js';

const OPEN_ACL = '{"$systemStreamAcl":{"$r":"$all","$w":"$all","$d":"$all","$mr":"$all","$mw":"$all"}}';

const ESCALATIONS: Record<string, { source: string; target: string }> = {
  'to-settings': {
    source: `fromStream("acct-1").when({$any: function(s, e){ emit("$settings", "$settings", ${OPEN_ACL}); }})`,
    target: '$settings',
  },
  'to-user-admin': {
    source: 'fromStream("acct-1").when({$any: function(s, e){ emit("$user-admin", "$UserUpdated", {loginName: "admin", groups: []}); }})',
    target: '$user-admin',
  },
  'result-to-settings': {
    source: `fromStream("acct-1").when({$init: function(){ return ${OPEN_ACL}; }, $any: function(s){ return s; }}).outputTo("$settings")`,
    target: '$settings',
  },
  'named-result-to-settings': {
    source: `options({resultStreamName: "$settings"}); fromStream("acct-1").when({$init: function(){ return ${OPEN_ACL}; }, $any: function(s){ return s; }}).outputState()`,
    target: '$settings',
  },
};

t.test('a projection created by an $ops user cannot write $settings or $user-admin', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('acct-1', -2, newEvents(1));
  const before = {
    $settings: (await readStream(node.url, '$settings')).length,
    '$user-admin': (await readStream(node.url, '$user-admin')).length,
  };
  t.equal((await fetch(`${node.url}/streams/%24user-admin`, { headers: { authorization: OPS_AUTH, accept: 'application/json' } })).status, 401, 'ops may not read $user-admin');
  for (const [name, { source, target }] of Object.entries(ESCALATIONS)) {
    const created = await fetch(`${node.url}/projections/continuous?name=${name}&type=JS&emit=yes`, { method: 'POST', body: source, headers: { authorization: OPS_AUTH } });
    t.equal(created.status, 201, `${name}: created`);
    const info = await waitStatus(node.url, name, 'Faulted');
    t.match(info.stateReason, new RegExp(`runs as user ops .*user ops may not write to stream \\${target}`), `${name}: faulted with the reason`);
    t.equal(info.lastCheckpoint, 'acct-1: -1', `${name}: no checkpoint past the refused batch`);
  }
  t.equal((await readStream(node.url, '$settings')).length, before.$settings, 'nothing was written to $settings');
  t.equal((await readStream(node.url, '$user-admin')).length, before['$user-admin'], 'nothing was written to $user-admin');
  t.equal((await adminFetch(`${node.url}/streams/%24user-admin`, { headers: { accept: 'application/json' } })).status, 200, 'admin still logs in');
  t.equal((await fetch(`${node.url}/streams/%24user-admin`, { headers: { authorization: OPS_AUTH, accept: 'application/json' } })).status, 401, 'ops still may not read $user-admin');
});
