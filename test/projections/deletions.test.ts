/**
 * $deleted on a real node fires for hard deletes (the tombstone) and for soft deletes (the
 * metadata whose `$tb` is the end, written by DELETE /streams/{s} without Svc-HardDelete), for
 * streams selected by name and for fromAll; other metadata, a truncation among it, does not.
 */
import t from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { newEvents } from '../helpers/engine.js';
import { createProjection, projectionState, startProjectionsNode, waitCaughtUp } from '../helpers/projections.js';

const PER_STREAM = `.foreachStream().when({
  $init: function(){ return {count:0, deletions:[]}; },
  $any: function(s, e){ s.count++; },
  $deleted: function(s, e){ s.deletions.push(e.streamId); }
})`;

t.test('soft and hard deletes of streams selected by name both reach $deleted, in the deleted stream\'s partition', async (t) => {
  const node = await startProjectionsNode(t);
  await createProjection(node.url, 'continuous', 'byname', `fromStreams(["soft-1", "hard-1", "kept-1"])${PER_STREAM}`);
  await node.engine.append('soft-1', -2, newEvents(2));
  await node.engine.append('hard-1', -2, newEvents(3));
  await node.engine.append('kept-1', -2, newEvents(1));
  const soft = await adminFetch(`${node.url}/streams/soft-1`, { method: 'DELETE' });
  t.equal(soft.status, 204, 'a soft delete over HTTP');
  const hard = await adminFetch(`${node.url}/streams/hard-1`, { method: 'DELETE', headers: { 'svc-harddelete': 'true' } });
  t.equal(hard.status, 204, 'a hard delete over HTTP');
  await node.engine.setStreamMetadata('kept-1', -2, { $tb: 1, $maxCount: 10 });
  await waitCaughtUp(node, 'byname');
  t.same(await projectionState(node.url, 'byname', 'soft-1'), { count: 2, deletions: ['soft-1'] });
  t.same(await projectionState(node.url, 'byname', 'hard-1'), { count: 3, deletions: ['hard-1'] });
  t.same(await projectionState(node.url, 'byname', 'kept-1'), { count: 1, deletions: [] }, 'a truncation is not a deletion');
});

t.test('a soft-deleted stream written again goes on in its partition, deleted once', async (t) => {
  const node = await startProjectionsNode(t);
  await createProjection(node.url, 'continuous', 'revived', `fromStream("again-1")${PER_STREAM}`);
  await node.engine.append('again-1', -2, newEvents(2));
  await node.engine.deleteStream('again-1', -2, false);
  await node.engine.append('again-1', -2, newEvents(1));
  await waitCaughtUp(node, 'revived');
  t.same(await projectionState(node.url, 'revived', 'again-1'), { count: 3, deletions: ['again-1'] });
});

t.test('fromAll with $deleted sees soft deletes of user streams, not of system streams', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('u-1', -2, newEvents(2));
  await node.engine.append('$sys-1', -2, newEvents(1));
  await node.engine.deleteStream('u-1', -2, false);
  await node.engine.deleteStream('$sys-1', -2, false);
  await createProjection(node.url, 'continuous', 'everything', `fromAll()${PER_STREAM}`);
  await createProjection(node.url, 'continuous', 'nohandler', 'fromAll().when({$init: function(){ return {count:0}; }, $any: function(s){ s.count++; }})');
  await waitCaughtUp(node, 'everything');
  await waitCaughtUp(node, 'nohandler');
  t.same(await projectionState(node.url, 'everything', 'u-1'), { count: 2, deletions: ['u-1'] });
  t.equal(await projectionState(node.url, 'everything', '$sys-1'), undefined, 'no partition for a system stream');
  t.same(await projectionState(node.url, 'nohandler'), { count: 2 }, 'without $deleted, a soft delete is no event to $any');
});
