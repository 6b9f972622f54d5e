/**
 * A projection runs with the rights of whoever last set its code or config, for as long as that
 * user keeps them (regression: PUT /projection/{name}/query kept the creator's run-as user, so an
 * $ops user ran its own code as an admin; a deleted user's projections kept its rights; links
 * were resolved with the node's rights).
 */
import t from 'tap';
import { adminFetch, createUser, OPS_AUTH } from '../helpers/auth.js';
import { newEvent, newEvents } from '../helpers/engine.js';
import { createProjection, projectionState, readStream, startProjectionsNode, waitCaughtUp, waitStatus, type ProjectionsNode } from '../helpers/projections.js';

const ADMINS_ONLY = Buffer.from('{"$acl":{"$r":"$admins","$w":"$admins","$d":"$admins","$mr":"$admins","$mw":"$admins"}}');

async function withSecret(node: ProjectionsNode): Promise<void> {
  await node.engine.setStreamMetadata('secret-1', -2, ADMINS_ONLY, crypto.randomUUID());
  await node.engine.append('secret-1', -2, [newEvent('Secret', { password: 'hunter2' })]);
  await node.engine.append('pub-1', -2, newEvents(2));
}

const COUNTER = 'fromStream("pub-1").when({$init: function(){ return {n: 0}; }, $any: function(s){ s.n++; return s; }})';

t.test('an $ops user who changes an admin\'s projection runs it as $ops and cannot read what only admins may', async (t) => {
  const node = await startProjectionsNode(t);
  await withSecret(node);
  await createProjection(node.url, 'continuous', 'admins', COUNTER);
  await waitCaughtUp(node, 'admins');
  t.equal((await fetch(`${node.url}/streams/secret-1`, { headers: { authorization: OPS_AUTH, accept: 'application/json' } })).status, 401, 'ops may not read secret-1');
  const leak = 'fromStream("secret-1").when({$any: function(s, e){ emit("leak-1", "Leak", e.body); }})';
  const changed = await fetch(`${node.url}/projection/admins/query?type=JS&emit=yes`, { method: 'PUT', body: leak, headers: { authorization: OPS_AUTH } });
  t.equal(changed.status, 200, 'ops may change the query');
  const info = await waitStatus(node.url, 'admins', 'Faulted');
  t.match(info.stateReason, /runs as user ops .*ops may not read stream secret-1/, 'it runs as ops now');
  t.same(await readStream(node.url, 'leak-1'), [], 'nothing of secret-1 was emitted');

  // The config too: an admin's projection faulted (it stays enabled); ops changes its config, and
  // the restart of the subsystem, by an admin, starts it again as ops.
  await node.engine.append('boom-1', -2, [newEvent('Boom', {})]);
  await createProjection(node.url, 'continuous', 'configured', 'fromStreams(["secret-1", "boom-1"]).when({$any: function(s, e){ if (e.eventType === "Boom") throw new Error("boom"); }})');
  t.match((await waitStatus(node.url, 'configured', 'Faulted')).stateReason, /boom/, 'as an admin it read secret-1 and faulted on its own');
  t.equal((await fetch(`${node.url}/projection/configured/config`, { method: 'PUT', body: '{"checkpointHandledThreshold":10}', headers: { authorization: OPS_AUTH } })).status, 200);
  t.equal((await adminFetch(`${node.url}/projections/restart`, { method: 'POST' })).status, 200);
  t.match((await waitStatus(node.url, 'configured', 'Faulted')).stateReason, /runs as user ops .*may not read stream secret-1/, 'the config change made it run as ops');
});

t.test('a projection whose user is deleted or loses a group faults with the reason, also at its next start', async (t) => {
  const node = await startProjectionsNode(t);
  await withSecret(node);
  const carol = await createUser(node.url, { loginName: 'carol', password: 'carol-pw', groups: ['$ops'] });
  const dave = await createUser(node.url, { loginName: 'dave', password: 'dave-pw', groups: ['$ops', 'readers'] });
  await node.engine.setStreamMetadata('team-1', -2, Buffer.from('{"$acl":{"$r":"readers"}}'), crypto.randomUUID());
  await node.engine.append('team-1', -2, newEvents(1));
  const create = (auth: string, name: string, source: string) =>
    fetch(`${node.url}/projections/continuous?name=${name}&type=JS`, { method: 'POST', body: source, headers: { authorization: auth } });
  t.equal((await create(carol, 'carols', COUNTER)).status, 201);
  t.equal((await create(dave, 'daves', 'fromStream("team-1").when({$any: function(s){ return {read: true}; }})')).status, 201);
  await waitCaughtUp(node, 'carols');
  await waitCaughtUp(node, 'daves');

  t.equal((await adminFetch(`${node.url}/users/carol`, { method: 'DELETE' })).status, 200);
  const carols = await waitStatus(node.url, 'carols', 'Faulted');
  t.match(carols.stateReason, /its user carol no longer exists/);

  const update = await adminFetch(`${node.url}/users/dave`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ fullName: 'Dave', groups: ['$ops'] }) });
  t.equal(update.status, 200);
  t.match((await waitStatus(node.url, 'daves', 'Faulted')).stateReason, /its user dave no longer has group readers/);

  t.equal((await adminFetch(`${node.url}/projections/restart`, { method: 'POST' })).status, 200);
  t.match((await waitStatus(node.url, 'carols', 'Faulted')).stateReason, /its user carol no longer exists/, 'a restart does not give the rights back');
  t.equal((await adminFetch(`${node.url}/projection/carols/command/enable`, { method: 'POST' })).status, 200);
  await waitCaughtUp(node, 'carols');
  t.same(await projectionState(node.url, 'carols'), { n: 2 }, 'enabled by an admin, it runs as the admin');
});

t.test('links are resolved with the projection\'s user\'s rights: a link into a stream it may not read is not resolved', async (t) => {
  const node = await startProjectionsNode(t);
  await withSecret(node);
  const link = (target: string) => ({ ...newEvent('$>', {}), data: Buffer.from(target), isJson: false });
  await node.engine.append('mixed-1', -2, [link('0@secret-1'), link('0@pub-1')]);
  const source = 'fromStream("mixed-1").when({$init: function(){ return {seen: []}; }, $any: function(s, e){ s.seen.push(e.streamId + "/" + e.eventType); return s; }})';
  t.equal((await fetch(`${node.url}/projections/continuous?name=ops-links&type=JS`, { method: 'POST', body: source, headers: { authorization: OPS_AUTH } })).status, 201);
  await createProjection(node.url, 'continuous', 'admin-links', source);
  await waitCaughtUp(node, 'ops-links');
  await waitCaughtUp(node, 'admin-links');
  t.same(await projectionState(node.url, 'ops-links'), { seen: ['pub-1/TestEvent'] }, 'as ops: the link into secret-1 points at nothing');
  t.same(await projectionState(node.url, 'admin-links'), { seen: ['secret-1/Secret', 'pub-1/TestEvent'] }, 'as an admin: both');

  const readEvents = await fetch(`${node.url}/projections/read-events`, {
    method: 'POST', headers: { authorization: OPS_AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ query: { streams: ['mixed-1'] }, maxEvents: 10 }),
  });
  t.equal(readEvents.status, 200);
  const read = await readEvents.json() as { events: Array<{ eventStreamId: string }> };
  t.same(read.events.map((event) => event.eventStreamId), ['pub-1'], 'read-events resolves links with the caller\'s rights too');
  const direct = await fetch(`${node.url}/projections/read-events`, {
    method: 'POST', headers: { authorization: OPS_AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ query: { streams: ['secret-1'] }, maxEvents: 10 }),
  });
  t.equal(direct.status, 401, 'and reads no source the caller may not read');
});
