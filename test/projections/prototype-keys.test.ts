/**
 * Event types and partition names are keys of tables without a prototype (regression: handlers
 * were looked up on the projection's own object, so an event of type toString or constructor
 * called Object.prototype's function as a handler, one of type $init ran the $init handler, and
 * a partition named __proto__ lost its state to the prototype chain).
 */
import t from 'tap';
import { newEvent } from '../helpers/engine.js';
import { createProjection, projectionState, startProjectionsNode, waitCaughtUp } from '../helpers/projections.js';
import { adminFetch } from '../helpers/auth.js';

const PROTOTYPE_TYPES = ['valueOf', 'hasOwnProperty', 'toString', 'constructor', '__proto__', 'isPrototypeOf', '__defineGetter__'];
const LIFECYCLE_TYPES = ['$init', '$initShared', '$created', '$deleted', '$any'];

t.test('event types named like Object.prototype members or lifecycle handlers reach $any like any unknown type', async (t) => {
  const node = await startProjectionsNode(t);
  const types = [...PROTOTYPE_TYPES, ...LIFECYCLE_TYPES, 'Plain'];
  await node.engine.append('typed-1', -2, types.map((type) => newEvent(type, { type })));
  // The root state comes from $init before any event, without $created: an event of type $created
  // that ran the $created handler would count 1, one of type $init would start the state afresh.
  await createProjection(node.url, 'continuous', 'types', `fromStream("typed-1").when({
    $init: function () { return { inits: 0, created: 0, seen: [] }; },
    $created: function (s) { s.created++; return s; },
    $deleted: function (s) { s.deleted = true; return s; },
    Plain: function (s, e) { s.seen.push("Plain:" + e.eventType); return s; },
    $any: function (s, e) { s.seen.push("any:" + e.eventType); return s; }
  })`);
  await waitCaughtUp(node, 'types');
  const expected = types.map((type) => (type === 'Plain' ? 'Plain:Plain' : `any:${type}`));
  t.same(await projectionState(node.url, 'types'), { inits: 0, created: 0, seen: expected }, 'every type went to $any; no lifecycle handler ran for an event');
});

t.test('without $any, such event types reach nothing and the state is untouched', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('typed-2', -2, [...PROTOTYPE_TYPES, '$init', '$created'].map((type) => newEvent(type, {})));
  await node.engine.append('typed-2', -2, [newEvent('Counted', {})]);
  await createProjection(node.url, 'continuous', 'none', `fromStream("typed-2").when({
    $init: function () { return { count: 0 }; },
    Counted: function (s) { s.count++; return s; }
  })`);
  await waitCaughtUp(node, 'none');
  const info = await (await adminFetch(`${node.url}/projection/none`)).json() as { status: string };
  t.equal(info.status, 'Running', 'no type called a prototype function and faulted the projection');
  t.same(await projectionState(node.url, 'none'), { count: 1 });
});

t.test('partitions named __proto__, constructor or toString keep their own state, across a restart', async (t) => {
  const node = await startProjectionsNode(t);
  const partitions = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'plain'];
  for (const partition of partitions) await node.engine.append('parts-1', -2, [newEvent('P', { p: partition }), newEvent('P', { p: partition })]);
  await createProjection(node.url, 'continuous', 'parts', `fromStream("parts-1").partitionBy(function (e) { return e.body.p; }).when({
    $init: function () { return { count: 0 }; },
    P: function (s) { s.count++; return s; }
  })`);
  await waitCaughtUp(node, 'parts');
  for (const partition of partitions) t.same(await projectionState(node.url, 'parts', partition), { count: 2 }, `partition ${partition}`);
  // A disable checkpoints every partition's state; the enable restores them from it.
  t.equal((await adminFetch(`${node.url}/projection/parts/command/disable`, { method: 'POST' })).status, 200);
  t.equal((await adminFetch(`${node.url}/projection/parts/command/enable`, { method: 'POST' })).status, 200);
  for (const partition of partitions) await node.engine.append('parts-1', -2, [newEvent('P', { p: partition })]);
  await waitCaughtUp(node, 'parts');
  for (const partition of partitions) t.same(await projectionState(node.url, 'parts', partition), { count: 3 }, `partition ${partition} after a restart`);
});
