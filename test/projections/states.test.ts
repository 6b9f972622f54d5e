/**
 * The transitional states of the wire note, seen over HTTP on a real node: a disable shows
 * Stopping and an abort Aborting until the writes under way are durable, a creation shows
 * Creating until the definition is stored, a deletion Deleting until the streams are deleted.
 * The writes are held back by a gate in front of the real engine (a disk slow to answer).
 */
import t from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { newEvents } from '../helpers/engine.js';
import { createProjection, gatedStorage, projectionInfo, startProjectionsNode, waitCaughtUp, waitStatus } from '../helpers/projections.js';

const COUNTER = 'fromStream("a-1").when({$init: function(){ return {n:0}; }, $any: function(s){ s.n++; }})';

/** A node whose writes to the streams `holding` names wait for a gate, from when `arm()` is called. */
async function gatedNode(t: Parameters<typeof startProjectionsNode>[0], holding: (streamName: string) => boolean) {
  let armed = false;
  const { wrap, gate } = gatedStorage((streamName) => armed && holding(streamName));
  const node = await startProjectionsNode(t, {}, {}, wrap);
  return { node, gate, arm: () => { armed = true; } };
}

t.test('a disable shows Stopping until its checkpoint is durable, then Stopped', async (t) => {
  const { node, gate, arm } = await gatedNode(t, (streamName) => streamName === '$projections-p-checkpoint');
  await node.engine.append('a-1', -2, newEvents(3));
  await createProjection(node.url, 'continuous', 'p', COUNTER);
  await waitCaughtUp(node, 'p');
  arm();
  const disabling = adminFetch(`${node.url}/projection/p/command/disable`, { method: 'POST' });
  await gate.held;
  t.equal((await projectionInfo(node.url, 'p')).status, 'Stopping');
  gate.open();
  t.equal((await disabling).status, 200);
  t.equal((await projectionInfo(node.url, 'p')).status, 'Stopped');
});

t.test('an abort shows Aborting until the result writes under way are done, then Aborted', async (t) => {
  const { node, gate, arm } = await gatedNode(t, (streamName) => streamName === '$projections-q-result');
  await createProjection(node.url, 'continuous', 'q', `${COUNTER}.outputState()`);
  await waitStatus(node.url, 'q', 'Running');
  arm();
  await node.engine.append('a-1', -2, newEvents(2));
  await gate.held;
  const aborting = adminFetch(`${node.url}/projection/q/command/abort`, { method: 'POST' });
  await waitStatus(node.url, 'q', 'Aborting');
  gate.open();
  t.equal((await aborting).status, 200);
  t.equal((await projectionInfo(node.url, 'q')).status, 'Aborted');
});

t.test('a creation shows Creating until its definition is stored; a deletion Deleting until its streams are deleted', async (t) => {
  const { node, gate, arm } = await gatedNode(t, (streamName) => streamName === '$projections-$all');
  arm();
  const creating = adminFetch(`${node.url}/projections/continuous?name=r&enabled=false`, { method: 'POST', body: COUNTER });
  await gate.held;
  t.equal((await projectionInfo(node.url, 'r')).status, 'Creating');
  const early = await adminFetch(`${node.url}/projection/r`, { method: 'DELETE' });
  t.equal(early.status, 400, 'a projection being created cannot be deleted yet');
  gate.open();
  t.equal((await creating).status, 201);
  t.equal((await projectionInfo(node.url, 'r')).status, 'Stopped');

  const second = await gatedNode(t, (streamName) => streamName === '$projections-$all');
  await createProjection(second.node.url, 'continuous', 'd', COUNTER, { enabled: 'false' });
  second.arm();
  const deleting = adminFetch(`${second.node.url}/projection/d`, { method: 'DELETE' });
  await second.gate.held;
  t.equal((await projectionInfo(second.node.url, 'd')).status, 'Deleting');
  second.gate.open();
  t.equal((await deleting).status, 200);
  t.equal((await adminFetch(`${second.node.url}/projection/d`)).status, 404, 'the projection is gone once its streams are deleted');
});

t.test('an enable runs the projection; listings show only states of the wire note', async (t) => {
  const { node } = await gatedNode(t, () => false);
  await node.engine.append('a-1', -2, newEvents(2));
  await createProjection(node.url, 'continuous', 's', COUNTER, { enabled: 'false' });
  t.equal((await projectionInfo(node.url, 's')).status, 'Stopped');
  const enabled = await adminFetch(`${node.url}/projection/s/command/enable`, { method: 'POST' });
  t.equal(enabled.status, 200);
  await waitCaughtUp(node, 's');
  t.equal((await projectionInfo(node.url, 's')).status, 'Running');
  const known = new Set(['Creating', 'Loading', 'Loaded', 'Preparing', 'Prepared', 'Starting', 'LoadingStopped', 'Running', 'Stopping',
    'Aborting', 'Stopped', 'Completed', 'Aborted', 'Faulted', 'Deleting']);
  const listing = await (await adminFetch(`${node.url}/projections/any`)).json() as { projections: Array<{ status: string }> };
  for (const item of listing.projections) t.ok(known.has(item.status.replace(/ \(Enabled\)$/, '')), `${item.status} is a state of the wire note`);
});
