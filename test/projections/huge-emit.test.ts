/**
 * A projection's huge emit batch cannot crash the writer (regression: 125k events emitted to
 * distinct streams by one event reached the writer as 125k appends in one group commit, which
 * threw a RangeError, and the node exited 1).
 */
import t from 'tap';
import { newEvents } from '../helpers/engine.js';
import { createProjection, startProjectionsNode, waitCaughtUp } from '../helpers/projections.js';

const STREAMS = 125_000;

t.test('125k emits to distinct streams in one batch are written, and the node goes on', async (t) => {
  const node = await startProjectionsNode(t, { projectionExecutionTimeout: 60_000 });
  await node.engine.append('fan-1', -2, newEvents(1));
  await createProjection(node.url, 'continuous', 'fan', `fromStream("fan-1").when({$any: function (s, e) {
    for (var i = 0; i < ${STREAMS}; i++) emit("fan-out-" + i, "Fanned", {i: i});
  }})`, { emit: 'yes' });
  await waitCaughtUp(node, 'fan');
  for (const i of [0, 1, STREAMS / 2, STREAMS - 1]) {
    const read = node.engine.readStreamForward(`fan-out-${i}`, 0, 10);
    t.equal(read.events.length, 1, `fan-out-${i} holds its event`);
  }
  await node.engine.append('after-1', -2, newEvents(1));
  t.equal(node.engine.readStreamForward('after-1', 0, 10).events.length, 1, 'the writer goes on');
});
