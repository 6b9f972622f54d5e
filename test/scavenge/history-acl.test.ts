// Who may read the record of scavenges (wire note §9): `$scavenges` and `$scavenges-<id>` carry
// an ACL that lets `$ops` read them and nobody write, delete or touch their metadata; admins
// pass every ACL. Checked on the metadata the node wrote and on reads over HTTP as an admin, as
// the default ops user, as a plain user and anonymously.
import t from 'tap';
import { ADMIN_AUTH, OPS_AUTH, createUser } from '../helpers/auth.js';
import { completion, fillRemovable, startScavenge, startScavengeNode } from '../helpers/scavenge-node.js';

const HISTORY_ACL = { $r: ['$ops'], $w: [], $d: [], $mr: [], $mw: [] };

t.test('$scavenges and $scavenges-<id> are readable by $ops and admins only, and writable by nobody', async (t) => {
  const node = await startScavengeNode(t);
  await fillRemovable(node.url);
  const scavengeId = await startScavenge(node.url, '?threshold=0');
  t.equal((await completion(node.url, scavengeId)).result, 'Success', 'the scavenge completes');
  const streams = ['$scavenges', `$scavenges-${scavengeId}`];
  for (const stream of streams) {
    t.same(node.engine.getStreamMetadata(stream).metadata.acl, HISTORY_ACL, `${stream} has the history ACL`);
  }

  const plain = await createUser(node.url, { loginName: 'reader', password: 'reader-pass' });
  const read = async (stream: string, authorization?: string) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (authorization) headers.authorization = authorization;
    const response = await fetch(`${node.url}/streams/${encodeURIComponent(stream)}/0/forward/10`, { headers });
    const text = await response.text();
    return { status: response.status, code: response.status === 200 ? undefined : (JSON.parse(text) as { code?: string }).code };
  };
  for (const stream of streams) {
    t.equal((await read(stream, ADMIN_AUTH)).status, 200, `an admin reads ${stream}`);
    t.equal((await read(stream, OPS_AUTH)).status, 200, `the ops user reads ${stream}`);
    t.same(await read(stream, plain), { status: 401, code: 'SVCDB_ERR_ACCESS_DENIED' }, `a plain user may not read ${stream}`);
    t.equal((await read(stream)).status, 401, `nor may an anonymous client read ${stream}`);
  }

  const write = await fetch(`${node.url}/streams/${encodeURIComponent(`$scavenges-${scavengeId}`)}`, {
    method: 'POST',
    headers: { authorization: OPS_AUTH, 'content-type': 'application/json', 'svc-eventtype': 'Forged', 'svc-eventid': '5b0c0e5e-8c9a-4f51-9a3c-0d6f7b6c2a11' },
    body: '{}',
  });
  t.equal(write.status, 401, 'the ops user may not write to the history');
  t.equal((JSON.parse(await write.text()) as { code?: string }).code, 'SVCDB_ERR_ACCESS_DENIED', 'with the access-denied code');
});
