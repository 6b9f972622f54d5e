/**
 * A checkpoint holds every partition's state in one event: when they add up to more than an
 * event may hold, the projection faults with a reason that says so and what to do (regression:
 * the reason was the append's own, telling the user to split "the data" of an event they never
 * wrote).
 */
import t from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { newEvents } from '../helpers/engine.js';
import { createProjection, readStream, startProjectionsNode, waitCaughtUp, waitStatus } from '../helpers/projections.js';

const STATE_CHARACTERS = 6_000_000;

t.test('states too large for one checkpoint fault the projection with a reason that names the checkpoint', async (t) => {
  const node = await startProjectionsNode(t, { projectionMemoryLimitMb: 256, projectionExecutionTimeout: 5000 });
  for (const stream of ['big-1', 'big-2', 'big-3']) await node.engine.append(stream, -2, newEvents(1));
  await createProjection(node.url, 'continuous', 'wide', `fromStreams(["big-1", "big-2", "big-3"]).foreachStream().when({
    $init: function(){ return {pad: ""}; },
    $any: function(s){ s.pad = "q".repeat(${STATE_CHARACTERS}); return s; }
  })`);
  await waitCaughtUp(node, 'wide');
  t.equal((await adminFetch(`${node.url}/projection/wide/command/disable`, { method: 'POST' })).status, 200);
  const info = await waitStatus(node.url, 'wide', 'Faulted');
  t.match(info.stateReason, /^the checkpoint of projection wide cannot be written: it holds the states of its 3 partitions in one event of \d+ bytes, over the limit of \d+ bytes for an event; make the states smaller .* or partition by fewer keys/);
  t.notMatch(info.stateReason, /split the data/);
  t.same(await readStream(node.url, '$projections-wide-checkpoint'), [], 'no checkpoint was written');
});
