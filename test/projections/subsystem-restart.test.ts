/**
 * POST /projections/restart on a real node: operators only; it answers "Restarting" at once, every
 * projection stops with a checkpoint and is loaded again from its streams, the enabled ones run on
 * from their checkpoints, and transient projections (never stored) are gone, as after a node start.
 * A one-time query that completed stays Completed with its state and result.
 */
import t from 'tap';
import { adminFetch, createUser, OPS_AUTH } from '../helpers/auth.js';
import { newEvents } from '../helpers/engine.js';
import { createProjection, projectionInfo, projectionState, readStream, startProjectionsNode, waitCaughtUp, waitStatus } from '../helpers/projections.js';
import { pollUntilAsync } from '../helpers/wait.js';

const COUNTER = 'fromStream("c-1").when({$init: function(){ return {n:0}; }, $any: function(s){ s.n++; }})';

t.test('a restart reloads the projections: state kept through the checkpoint, transient ones gone, stopped ones stay stopped', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('c-1', -2, newEvents(4));
  await createProjection(node.url, 'continuous', 'kept', COUNTER);
  await createProjection(node.url, 'continuous', 'idle', COUNTER, { enabled: 'false' });
  await createProjection(node.url, 'transient', 'brief', COUNTER);
  await waitCaughtUp(node, 'kept');
  t.equal((await projectionInfo(node.url, 'kept')).eventsProcessedAfterRestart, 4);

  const response = await adminFetch(`${node.url}/projections/restart`, { method: 'POST' });
  t.equal(response.status, 200);
  t.equal(await response.text(), '"Restarting"');
  await pollUntilAsync('the transient projection to be gone after the restart', async () => (await adminFetch(`${node.url}/projection/brief`)).status === 404, { intervalMs: 20 });
  await pollUntilAsync('kept to run again', async () => (await projectionInfo(node.url, 'kept')).status === 'Running', { intervalMs: 20 });

  const kept = await projectionInfo(node.url, 'kept');
  t.equal(kept.eventsProcessedAfterRestart, 0, 'a new run, resumed from the checkpoint the stop wrote: nothing processed twice');
  t.same(await projectionState(node.url, 'kept'), { n: 4 });
  t.match((await projectionInfo(node.url, 'idle')).status, /^Stopped/, 'a disabled projection stays stopped');
  await node.engine.append('c-1', -2, newEvents(2));
  await waitCaughtUp(node, 'kept');
  t.same(await projectionState(node.url, 'kept'), { n: 6 }, 'it goes on with new events');
  t.equal((await projectionInfo(node.url, 'kept')).eventsProcessedAfterRestart, 2);
  const created = await adminFetch(`${node.url}/projections/continuous?name=after`, { method: 'POST', body: COUNTER });
  t.equal(created.status, 201, 'projections can be created after the restart');
});

// Regression: a completed one-time query resumed from its completion checkpoint at every start and
// went on over the events written since, rewriting its result.
t.test('a completed one-time query stays Completed with its state and result after a restart, until it is reset', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('c-1', -2, newEvents(4));
  await createProjection(node.url, 'onetime', 'once', `${COUNTER}.outputState()`, { checkpoints: 'yes' });
  await waitStatus(node.url, 'once', 'Completed');
  t.same(await projectionState(node.url, 'once'), { n: 4 });
  await node.engine.append('c-1', -2, newEvents(2));

  t.equal((await adminFetch(`${node.url}/projections/restart`, { method: 'POST' })).status, 200);
  // A create waits for the restart to be over.
  await createProjection(node.url, 'transient', 'after', COUNTER);
  const info = await waitStatus(node.url, 'once', 'Completed');
  t.equal(info.eventsProcessedAfterRestart, 0, 'it did not run again');
  t.same(await projectionState(node.url, 'once'), { n: 4 }, 'its state is the one it completed with');
  t.same(await projectionState(node.url, 'once', undefined, 'result'), { n: 4 }, 'and so is its result');
  t.same((await readStream(node.url, '$projections-once-result')).map((event) => event.data), [{ n: 4 }], 'its result is written once');
  t.equal((await adminFetch(`${node.url}/projection/once/command/enable`, { method: 'POST' })).status, 200);
  t.match(await projectionInfo(node.url, 'once'), { status: 'Completed', eventsProcessedAfterRestart: 0 }, 'an enable does not run it again either');

  t.equal((await adminFetch(`${node.url}/projection/once/command/reset`, { method: 'POST' })).status, 200);
  await pollUntilAsync('a reset to run the query again over the log as it is now', async () => (await projectionState(node.url, 'once') as { n?: number } | undefined)?.n === 6, { intervalMs: 20 });
  t.match(await waitStatus(node.url, 'once', 'Completed'), { eventsProcessedAfterRestart: 6 });
});

t.test('only admins and ops may restart the subsystem', async (t) => {
  const node = await startProjectionsNode(t);
  await createProjection(node.url, 'continuous', 'p', COUNTER);
  const anonymous = await fetch(`${node.url}/projections/restart`, { method: 'POST' });
  t.equal(anonymous.status, 401);
  const user = await createUser(node.url, { loginName: 'plain', password: 'secret1' });
  const denied = await fetch(`${node.url}/projections/restart`, { method: 'POST', headers: { authorization: user } });
  t.equal(denied.status, 401);
  t.match(await denied.json(), { code: 'SVCDB_ERR_ACCESS_DENIED' });
  t.equal((await projectionInfo(node.url, 'p')).eventsProcessedAfterRestart, 0);
  t.match((await projectionInfo(node.url, 'p')).status, /^(Running|Starting|Prepar|Load)/, 'a refused restart changes nothing');
  const ops = await fetch(`${node.url}/projections/restart`, { method: 'POST', headers: { authorization: OPS_AUTH } });
  t.equal(ops.status, 200);
  const get = await adminFetch(`${node.url}/projections/restart`);
  t.equal(get.status, 405, 'restart is a POST');
});
