import t from 'tap';
import { createProjection, projectionState, startProjectionsNode, waitCaughtUp } from '../helpers/projections.js';
import { newEvents } from '../helpers/engine.js';

t.test('count', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('order-1', -2, newEvents(5));
  await createProjection(node.url, 'continuous', 'count', 'fromAll().when({$init: function(){return {count:0}}, $any: function(s, e){ s.count++; }})');
  await node.engine.append('order-2', -2, newEvents(3));
  await waitCaughtUp(node, 'count');
  t.same(await projectionState(node.url, 'count'), { count: 8 });
});
